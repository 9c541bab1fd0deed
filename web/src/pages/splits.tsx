/**
 * Splits of recordings, products and artists (an artist's split is the default of its recordings
 * and products): each with its sale type, dates and territories; created, changed and deleted;
 * their history of share changes, paged; payees found by name or e-mail among every member,
 * including payees who do not sign in.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, qs, client, ok, type ApiPath } from '../api';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Loading, Notice, Pager, SearchBox, Section, Table, useAction, useLoad } from '../ui';
import { localDate } from '../words';
import { useDebounced } from './catalogue';

type Any = Record<string, any>;
type Target = 'asset' | 'product' | 'artist';
const TARGETS: Record<Target, { label: string; noun: string; list: ApiPath; title: (r: Any) => string; code: (r: Any) => string }> = {
  asset: { label: 'Recordings', noun: 'recording', list: '/asset', title: (r) => r.title, code: (r) => r.isrc ?? '—' },
  product: { label: 'Products', noun: 'product', list: '/product/', title: (r) => r.title, code: (r) => r.upc ?? '—' },
  artist: { label: 'Artists', noun: 'artist', list: '/artist/', title: (r) => r.name, code: (r) => r.country ?? '—' },
};
const TYPES: [string, string][] = [['all', 'Every sale'], ['stream', 'Streams'], ['download', 'Downloads'], ['ugc', 'User videos (UGC)'], ['physical', 'Physical'], ['return', 'Returns'], ['radio', 'Radio'], ['sync', 'Sync'], ['ringtone', 'Ringtones'], ['other', 'Other']];
const typeName = (t: string) => TYPES.find(([k]) => k === t)?.[1] ?? t;
const SIZE = 25;

/** Shares as exact millionths, so 33.333333 + 33.333333 + 33.333334 is exactly 100. */
export function shareUnits(s: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(s.trim());
  return m ? BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0')) : null;
}
function unitsText(u: bigint): string {
  const s = (u < 0n ? -u : u).toString().padStart(7, '0');
  const frac = s.slice(-6).replace(/0+$/, '');
  return `${u < 0n ? '-' : ''}${s.slice(0, -6)}${frac ? '.' + frac : ''}`;
}

interface Member { id: string; email: string; firstName?: string | null; lastName?: string | null; role: string; status: string }
function memberName(m: Member): string {
  const n = [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email;
  return m.status === 'not_invited' ? `${n} (does not sign in)` : n;
}

/** Names of the members met so far (the first 200, then every one a search finds). */
function useMembers() {
  const [known, setKnown] = useState<Map<string, Member>>(new Map());
  const learn = (ms: Member[]) => setKnown((k) => { const n = new Map(k); ms.forEach((m) => n.set(m.id, m)); return n; });
  const first = useLoad(() => ok(client.GET('/user/', { params: { query: { size: 200 } } })), []);
  useEffect(() => { if (first.data) learn(first.data.data); }, [first.data]);
  const name = (id: string | null) => (id ? (known.get(id) ? memberName(known.get(id)!) : 'a former member') : '—');
  return { known, learn, name, error: first.error };
}
type Members = ReturnType<typeof useMembers>;

/** A payee: a search over every member by name or e-mail, and the list of those it finds. */
function PayeePicker({ n, value, onChange, members }: { n: number; value: string; onChange: (id: string) => void; members: Members }) {
  const [find, setFind] = useState('');
  const q = useDebounced(find);
  const found = useLoad(() => (q ? ok(client.GET('/user/', { params: { query: { search: q, size: 20 } } })) : Promise.resolve({ data: [] as Member[] })), [q]);
  useEffect(() => { if (found.data?.data.length) members.learn(found.data.data); }, [found.data]);
  const list = q ? found.data?.data ?? [] : [...members.known.values()];
  const options = value && !list.some((m) => m.id === value) && members.known.get(value) ? [members.known.get(value)!, ...list] : list;
  useEffect(() => { if (q && found.data?.data.length === 1 && !value) onChange(found.data.data[0]!.id); }, [found.data]);
  return (
    <>
      <Field label={`Find payee ${n}`} hint="Name or e-mail">
        <input type="search" value={find} onInput={(e) => setFind(e.currentTarget.value)} />
      </Field>
      <Field label={`Payee ${n}`}>
        <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">{q && !found.loading && !list.length ? 'No member found' : 'Choose…'}</option>
          {options.map((m) => <option key={m.id} value={m.id}>{memberName(m)}</option>)}
        </select>
      </Field>
    </>
  );
}

interface Draft { id: string | null; type: string; validFrom: string; validTo: string; territories: string; rows: { user: string; share: string }[] }
const emptyDraft = (rows: Draft['rows'] = [{ user: '', share: '100' }]): Draft => ({ id: null, type: 'all', validFrom: '', validTo: '', territories: '', rows });
const draftOf = (s: Any): Draft => ({
  id: s.id, type: s.type, validFrom: s.conditions.validFrom ?? '', validTo: s.conditions.validTo ?? '', territories: (s.conditions.territories ?? []).join(', '),
  rows: s.split.map((x: Any) => ({ user: x.user, share: String(x.share) })),
});
function conditionsText(c: Any): string {
  const when = c.validFrom && c.validTo ? `${localDate(c.validFrom)} to ${localDate(c.validTo)}` : c.validFrom ? `from ${localDate(c.validFrom)}` : c.validTo ? `until ${localDate(c.validTo)}` : 'any date';
  return `${when}; ${c.territories?.length ? c.territories.join(', ') : 'worldwide'}`;
}

function SplitForm({ target, item, draft, members, onSaved, onCancel }: { target: Target; item: Any; draft: Draft; members: Members; onSaved: () => void; onCancel: () => void }) {
  const [d, setD] = useState<Draft>(draft);
  const [ver, setVer] = useState(0); // a new draft starts the payee searches afresh
  useEffect(() => { setD(draft); setVer((v) => v + 1); }, [draft]);
  const a = useAction();
  const rows = d.rows;
  const setRows = (r: Draft['rows']) => setD({ ...d, rows: r });
  const units = rows.map((r) => shareUnits(r.share));
  const total = units.reduce<bigint>((t, u) => t + (u ?? 0n), 0n);
  const adds = !units.some((u) => u === null) && !rows.some((r) => !r.user) && total === 100_000_000n && rows.length > 0;
  const noun = TARGETS[target].noun;
  const save = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      if (rows.some((r) => !r.user)) throw new Error('Choose a payee on every row.');
      if (!adds) throw new Error(`The shares add up to ${unitsText(total)} %, not 100 %`);
      const territories = d.territories.split(/[\s,;]+/).map((t) => t.trim().toUpperCase()).filter(Boolean);
      const bad = territories.filter((t) => !/^[A-Z]{2}$/.test(t));
      if (bad.length) throw new Error(`Territories are two-letter country codes (FR, US…): ${bad.join(', ')} is not one.`);
      if (d.validFrom && d.validTo && d.validTo < d.validFrom) throw new Error('The last date comes before the first date.');
      const conditions = { validFrom: d.validFrom || null, validTo: d.validTo || null, territories: territories.length ? territories : null };
      const split = rows.map((r) => ({ user: r.user, share: r.share.trim() }));
      if (d.id) await ok(client.PUT('/split/{id}', { params: { path: { id: d.id } }, body: { split, type: d.type, conditions } }));
      else await ok(client.POST('/split/', { body: { [target]: item.id, type: d.type, conditions, split } }));
      onSaved();
      return d.id ? 'Split saved: its royalties are re-allocated.' : target === 'artist' ? 'Default split saved: recordings and products of this artist without a split of their own now use it.' : `Split saved: the ${noun} now has its own split; its royalties are re-allocated.`;
    });
  };
  return (
    <form class="stack" onSubmit={save} noValidate>
      <fieldset>
        <legend>{d.id ? `Change the split for ${typeName(d.type).toLowerCase()}` : target === 'artist' ? 'New default split for this artist' : `New split for this ${noun}`}</legend>
        <div class="row">
          <Field label="Sales it pays"><select value={d.type} onChange={(e) => setD({ ...d, type: e.currentTarget.value })}>{TYPES.map(([k, l]) => <option key={k} value={k}>{l}</option>)}</select></Field>
          <Field label="First sale date" hint="Empty: from the start"><input type="date" value={d.validFrom} onInput={(e) => setD({ ...d, validFrom: e.currentTarget.value })} /></Field>
          <Field label="Last sale date" hint="Empty: no end"><input type="date" value={d.validTo} onInput={(e) => setD({ ...d, validTo: e.currentTarget.value })} /></Field>
          <Field label="Territories" hint="Country codes such as FR, DE; empty: worldwide"><input type="text" value={d.territories} onInput={(e) => setD({ ...d, territories: e.currentTarget.value })} /></Field>
        </div>
        {rows.map((r, i) => (
          <div class="row payee-row" key={`${ver}-${i}`}>
            <PayeePicker n={i + 1} value={r.user} members={members} onChange={(id) => setRows(rows.map((x, j) => (j === i ? { ...x, user: id } : x)))} />
            <Field label={`Share ${i + 1} (%)`}>
              <input type="text" inputMode="decimal" value={r.share} aria-invalid={units[i] === null} onInput={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, share: e.currentTarget.value } : x)))} />
            </Field>
            <button type="button" onClick={() => setRows(rows.filter((_, j) => j !== i))} aria-label={`Remove payee ${i + 1}`}>Remove</button>
          </div>
        ))}
        <button type="button" onClick={() => setRows([...rows, { user: '', share: '0' }])}>Add a payee</button>
      </fieldset>
      <p role="status" class={adds ? 'ok-text' : 'error-text'} data-testid="split-total">Total: {unitsText(total)} %{adds ? '' : total !== 100_000_000n ? ' — must be exactly 100 %' : ' — choose a payee on every row'}</p>
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <div class="row tight">
        <button type="submit" class="primary" disabled={a.busy}>Save split</button>
        {d.id ? <button type="button" onClick={onCancel}>Cancel the change</button> : null}
      </div>
    </form>
  );
}

/** Every share change of the item's splits, newest first, paged on the server. */
function History({ target, item, gen, members }: { target: Target; item: Any; gen: number; members: Members }) {
  const [page, setPage] = useState(1);
  const h = useLoad(() => ok(client.GET('/split/history', { params: { query: { [target]: item.id, page, size: SIZE } } })), [item.id, page, gen]);
  const words: Record<string, string> = { add: 'added', change: 'changed', remove: 'removed', move: 'moved from a merged artist' };
  return (
    <Section title={`History of the splits of ${TARGETS[target].title(item)}`} id="h-split-history">
      <Loading show={h.loading} /><ErrorBox error={h.error} />
      <Table caption="Share changes, newest first" rows={h.data?.data} rowKey={(r) => String(r.seq)} empty="No change yet." columns={[
        { label: 'When', cell: (r) => new Date(r.changedAt).toLocaleString() },
        { label: 'Sales', cell: (r) => typeName(r.type ?? 'all') },
        { label: 'Payee', cell: (r) => members.name(r.user) },
        { label: 'Change', cell: (r) => words[r.action] ?? r.action },
        { label: 'Share before', cell: (r) => (r.oldShare == null ? '—' : `${Number(r.oldShare)} %`), num: true },
        { label: 'Share after', cell: (r) => (r.newShare == null ? '—' : `${Number(r.newShare)} %`), num: true },
        { label: 'By', cell: (r) => members.name(r.changedBy) },
      ]} />
      {(h.data?.pagination.total ?? 0) > SIZE ? <Pager page={page} total={h.data!.pagination.total} size={SIZE} onPage={setPage} label="History pages" /> : null}
    </Section>
  );
}

function SplitsOf({ target, item, members }: { target: Target; item: Any; members: Members }) {
  const [gen, setGen] = useState(0);
  const own = useLoad(() => ok(client.GET('/split/', { params: { query: { [target]: item.id, size: 200 } } })), [item.id, gen]);
  const eff = useLoad(() => (target === 'asset' ? ok(client.POST('/split/match', { body: { asset: item.id } })) : Promise.resolve(null)), [item.id, gen]);
  const [draft, setDraft] = useState<Draft>(emptyDraft());
  const confirm = useConfirm();
  const splits = (own.data?.data ?? []).filter((s) => s[target] === item.id);
  const effective = eff.data?.data.split;
  // a recording without a split of its own starts from the one it inherits
  useEffect(() => {
    if (!own.data || (target === 'asset' && !eff.data)) return;
    if (!splits.length && effective) setDraft(emptyDraft(effective.split.map((x: Any) => ({ user: x.user, share: String(x.share) }))));
  }, [own.data, eff.data]);
  const title = TARGETS[target].title(item);
  const remove = (s: Any) => confirm.ask({
    title: 'Delete split', action: 'Delete the split',
    body: <p>Delete the split of <strong>{title}</strong> for {typeName(s.type).toLowerCase()} ({conditionsText(s.conditions)})? {target === 'artist' ? 'Recordings and products that used it as their default' : 'Its sales'} fall back to the next split that applies, or stay unallocated.</p>,
    run: async () => { await ok(client.DELETE('/split/{id}', { params: { path: { id: s.id } } })); setDraft(emptyDraft()); setGen((g) => g + 1); },
  });
  return (
    <>
      <Section title={`${target === 'artist' ? 'Default splits' : 'Splits'} of ${title}`} id="h-split-of">
        <Loading show={own.loading} /><ErrorBox error={own.error ?? eff.error} />
        {target === 'asset' ? (
          <p data-testid="effective-level">{effective ? <>Effective split today: <strong>{effective.target === 'asset' ? 'the recording’s own' : `inherited from the ${effective.target}`}</strong> ({eff.data!.data.level})</> : 'No split applies today: its royalties stay unallocated.'}</p>
        ) : null}
        {target === 'asset' && effective ? <ul class="shares">{effective.split.map((x: Any) => <li key={x.user}>{members.name(x.user)}: {String(x.share)} %</li>)}</ul> : null}
        <Table caption={`Splits of ${title}`} rows={splits} rowKey={(s) => s.id} empty={target === 'artist' ? 'No default split: its recordings and products need splits of their own.' : `No split of its own.`} columns={[
          { label: 'Sales', cell: (s) => typeName(s.type) },
          { label: 'Applies', cell: (s) => conditionsText(s.conditions) },
          { label: 'Shares', cell: (s) => s.split.map((x: Any) => `${members.name(x.user)} ${x.share} %`).join(' · ') },
          { label: 'Actions', cell: (s) => (
            <span class="row tight">
              <button type="button" onClick={() => setDraft(draftOf(s))} aria-label={`Change the split for ${typeName(s.type).toLowerCase()} (${conditionsText(s.conditions)})`}>Change</button>
              <button type="button" class="danger" onClick={() => remove(s)} aria-label={`Delete the split for ${typeName(s.type).toLowerCase()} (${conditionsText(s.conditions)})`}>Delete</button>
            </span>
          ) },
        ]} />
        <SplitForm target={target} item={item} draft={draft} members={members} onSaved={() => { setDraft(emptyDraft()); setGen((g) => g + 1); }} onCancel={() => setDraft(emptyDraft())} />
      </Section>
      <History target={target} item={item} gen={gen} members={members} />
      {confirm.dialog}
    </>
  );
}

export function SplitsPage() {
  const [target, setTarget] = useState<Target>('asset');
  const t = TARGETS[target];
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const q = useDebounced(search);
  const items = useLoad(() => api<{ data: Any[]; pagination: { total: number } }>('GET', `${t.list}${qs({ search: q, page, size: SIZE })}`), [target, q, page]);
  const members = useMembers();
  const [chosen, setChosen] = useState<Any | null>(null);
  return (
    <>
      <h1>Splits</h1>
      <p class="muted">A sale is paid by the recording’s split, else the product’s, else the default split of the recording’s artist, else of the product’s artist. Within one of these, a split for the sale’s type beats one for every sale, and one for the sale’s territory beats a worldwide one.</p>
      <div role="group" aria-label="Splits of" class="tabs">
        {(Object.keys(TARGETS) as Target[]).map((k) => <button key={k} type="button" aria-pressed={target === k} onClick={() => { setTarget(k); setPage(1); setChosen(null); }}>{TARGETS[k].label}</button>)}
      </div>
      <Section title={t.label}>
        <SearchBox label={`Search ${t.label.toLowerCase()}`} value={search} onInput={(v) => { setSearch(v); setPage(1); }} />
        <Loading show={items.loading} /><ErrorBox error={items.error ?? members.error} />
        <Table caption={t.label} rows={items.data?.data} rowKey={(r) => r.id} empty={q ? 'Nothing matches the search.' : 'Nothing yet.'} columns={[
          { label: target === 'artist' ? 'Name' : 'Title', cell: (r) => t.title(r) },
          ...(target === 'artist' ? [] : [{ label: 'Artist', cell: (r: Any) => r.displayArtist ?? '—' }]),
          { label: target === 'asset' ? 'ISRC' : target === 'product' ? 'UPC' : 'Country', cell: (r) => t.code(r) },
          { label: 'Split', cell: (r) => <button type="button" onClick={() => setChosen(r)} aria-label={`Edit split: ${t.title(r)}`}>Edit split</button> },
        ]} />
        <Pager page={page} total={items.data?.pagination.total ?? 0} size={SIZE} onPage={setPage} label={`${t.label} pages`} noun={[t.noun, t.label.toLowerCase()]} />
      </Section>
      {chosen ? <SplitsOf key={chosen.id} target={target} item={chosen} members={members} /> : null}
    </>
  );
}
