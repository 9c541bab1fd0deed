/**
 * Matching: suggestions accepted or rejected one by one or in bulk, and the unmatched lines
 * grouped by what identifies them (ISRC or UPC, title and artist), paged on the server, each
 * group matched to an existing recording or product found by search (saved as a matching rule,
 * so later statements match too) or made a new one.
 */
import { useState } from 'preact/hooks';
import { client, ok, type Answer } from '../api';
import { Dialog, ErrorBox, Loading, Notice, Pager, SearchBox, Section, Table, pct, useAction, useLoad } from '../ui';
import { localMoney } from '../words';

type Suggestion = Answer<'/royalty/matches/suggestions'>['data'][number];
type AssetGroup = Answer<'/checklist/royaltyassets'>['data'][number];
type ProductGroup = Answer<'/checklist/royaltyproducts'>['data'][number];
/** A group of statement lines of either kind: its code is the kind's `code` (isrc or upc). */
type Unmatched = Omit<AssetGroup, 'isrc'> & Partial<Pick<AssetGroup, 'isrc'> & Pick<ProductGroup, 'upc'>>;
type Found = Pick<Answer<'/asset'>['data'][number] | Answer<'/product/'>['data'][number], 'id' | 'title' | 'displayArtist'> & { isrc?: string | null; upc?: string | null };
type Page<T> = { data: T[]; pagination: { total: number } };

/** What the two kinds of group differ in: recordings (ISRC) and products (UPC), with their routes. */
interface Kind {
  code: 'isrc' | 'upc'; codeLabel: string; noun: string; rule: 'asset' | 'product'; idField: 'assetId' | 'productId';
  section: string; about: string; caption: string;
  /** a page of the checklist of unmatched groups */
  groups: (query: { page: number; size: number }) => Promise<Page<Unmatched>>;
  /** the catalogue items found by a search */
  find: (search: string) => Promise<Page<Found>>;
  /** a new catalogue item for the group */
  create: (u: Unmatched) => Promise<unknown>;
}
const KINDS: Record<'asset' | 'product', Kind> = {
  asset: {
    code: 'isrc', codeLabel: 'ISRC', noun: 'recording', rule: 'asset', idField: 'assetId',
    section: 'Unmatched lines', caption: 'Statement lines matching no recording',
    about: 'Statement lines that match no recording, grouped by ISRC, title and artist, the largest amounts first.',
    groups: (query) => ok(client.GET('/checklist/royaltyassets', { params: { query } })),
    find: (search) => ok(client.GET('/asset', { params: { query: { search, size: 10 } } })),
    create: (u) => ok(client.POST('/asset', { body: { title: u.title || u.isrc || 'Untitled', isrc: u.isrc || undefined, displayArtist: u.artist || undefined, artists: u.artist ? [u.artist] : undefined } })),
  },
  product: {
    code: 'upc', codeLabel: 'UPC', noun: 'product', rule: 'product', idField: 'productId',
    section: 'Unmatched releases', caption: 'Statement lines matching no product',
    about: 'Statement lines that name a release (UPC or release title) matching no product, grouped by UPC, release title and artist.',
    groups: (query) => ok(client.GET('/checklist/royaltyproducts', { params: { query } })),
    find: (search) => ok(client.GET('/product/', { params: { query: { search, size: 10 } } })),
    create: (u) => ok(client.POST('/product/', { body: { title: u.title || u.upc || 'Untitled', upc: u.upc || undefined, displayArtist: u.artist || undefined } })),
  },
};

const PAGE = 25;


const groupName = (u: Unmatched) => u.title ?? u.isrc ?? u.upc ?? 'Untitled';

function Suggestions({ gen, onChange }: { gen: number; onChange: () => void }) {
  const [page, setPage] = useState(1);
  const sugg = useLoad(() => ok(client.GET('/royalty/matches/suggestions', { params: { query: { page, size: PAGE } } })), [gen, page]);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const a = useAction();
  const rows = sugg.data?.data ?? [];
  const decide = (s: Suggestion, verb: 'accept' | 'reject') => a.run(async () => {
    const body = { body: { suggestionId: s.id } };
    if (verb === 'accept') await ok(client.POST('/royalty/matches/accept', body));
    else await ok(client.POST('/royalty/matches/reject', body));
    onChange();
    return verb === 'accept' ? `Accepted: “${s.statement.title ?? s.statement.isrc}” is now ${s.candidate.title}. Its lines are being re-matched.` : 'Suggestion rejected.';
  });
  const acceptPicked = () => a.run(async () => {
    const chosen = rows.filter((s) => picked.has(s.id));
    for (const s of chosen) await ok(client.POST('/royalty/matches/accept', { body: { suggestionId: s.id } }));
    setPicked(new Set());
    onChange();
    return `${chosen.length} ${chosen.length === 1 ? 'suggestion' : 'suggestions'} accepted; their lines are being re-matched.`;
  });
  const toggle = (id: string, on: boolean) => { const n = new Set(picked); if (on) n.add(id); else n.delete(id); setPicked(n); };
  const all = rows.length > 0 && rows.every((s) => picked.has(s.id));
  return (
    <Section title="Match suggestions" actions={rows.length ? (
      <div class="row tight">
        <label class="check"><input type="checkbox" checked={all} onChange={(e) => setPicked(e.currentTarget.checked ? new Set(rows.map((s) => s.id)) : new Set())} /> Select all on this page</label>
        <button type="button" class="primary" disabled={a.busy || picked.size === 0} onClick={acceptPicked}>Accept selected ({picked.size})</button>
      </div>
    ) : null}>
      <ErrorBox error={sugg.error ?? a.error} /><Notice text={a.done} />
      <Table caption="Match suggestions" rows={rows} rowKey={(s) => s.id} empty="No suggestions waiting." columns={[
        { label: 'Select', cell: (s) => <input type="checkbox" checked={picked.has(s.id)} onChange={(e) => toggle(s.id, e.currentTarget.checked)} aria-label={`Select ${s.candidate.title} for ${s.statement.title ?? s.statement.isrc ?? ''}`} /> },
        { label: 'In the statement', cell: (s) => <>{s.statement.title ?? '—'} <span class="muted">{s.statement.artist ?? ''} {s.statement.isrc ?? s.statement.upc ?? ''}</span></> },
        { label: 'Suggested', cell: (s) => <>{s.candidate.title} <span class="muted">{s.candidate.isrc ?? s.candidate.upc ?? ''}</span></> },
        { label: 'Score', cell: (s) => pct(s.score), num: true },
        { label: 'Why', cell: (s) => s.reason },
        { label: 'Decision', cell: (s) => (
          <div class="row tight">
            <button type="button" class="primary" disabled={a.busy} onClick={() => decide(s, 'accept')} aria-label={`Accept ${s.candidate.title} for ${s.statement.title ?? ''}`}>Accept</button>
            <button type="button" disabled={a.busy} onClick={() => decide(s, 'reject')} aria-label={`Reject ${s.candidate.title} for ${s.statement.title ?? ''}`}>Reject</button>
          </div>
        ) },
      ]} />
      {(sugg.data?.pagination.total ?? 0) > PAGE ? <Pager page={page} size={PAGE} total={sugg.data!.pagination.total} onPage={setPage} label="Suggestion pages" /> : null}
    </Section>
  );
}

/** Finds a recording by title, artist or ISRC and matches the group's lines to it. */
function MatchDialog({ kind, group, onClose }: { kind: Kind; group: Unmatched | null; onClose: (done: string | null) => void }) {
  const [q, setQ] = useState('');
  const [shown, setShown] = useState<Unmatched | null>(null);
  if (group !== shown) { setShown(group); setQ(group?.title ?? group?.[kind.code] ?? ''); }
  const found = useLoad(() => (group && q.trim() ? kind.find(q.trim()) : Promise.resolve(undefined)), [q, group]);
  const a = useAction();
  const code = group?.[kind.code] ?? null;
  const match = (r: Found) => a.run(async () => {
    const g = group!;
    const key = code ? { [kind.code]: code } : { title: g.title ?? '', ...(g.artist ? { artist: g.artist } : {}) };
    await ok(client.POST('/royalty/matching-rules', { body: { kind: kind.rule, ...key, [kind.idField]: r.id } }));
    onClose(`The lines of “${groupName(g)}” are being matched to “${r.title}”. Later statements with the same ${code ? kind.codeLabel : 'title and artist'} will be too.`);
  });
  return (
    <Dialog title={`Match “${group ? groupName(group) : ''}” to a ${kind.noun}`} open={!!group} onClose={() => onClose(null)}>
      <div class="stack">
        <p class="muted">{group?.lines} lines{group?.artist ? ` by ${group.artist}` : ''}{code ? `, ${kind.codeLabel} ${code}` : ''}.</p>
        <SearchBox label={`Find a ${kind.noun} by title, artist or ${kind.codeLabel}`} value={q} onInput={setQ} />
        <Loading show={found.loading} /><ErrorBox error={found.error ?? a.error} />
        <Table caption={`${kind.noun === 'recording' ? 'Recordings' : 'Products'} found`} rows={found.data?.data} rowKey={(r) => r.id} empty={q.trim() ? `No ${kind.noun} found: try another word.` : 'Type to search.'} columns={[
          { label: 'Title', cell: (r) => r.title },
          { label: 'Artist', cell: (r) => r.displayArtist ?? '—' },
          { label: kind.codeLabel, cell: (r) => r[kind.code] ?? '—' },
          { label: 'Choose', cell: (r) => <button type="button" class="primary" disabled={a.busy} onClick={() => match(r)} aria-label={`Match to ${r.title}${r[kind.code] ? ` (${r[kind.code]})` : ''}`}>Match</button> },
        ]} />
        <div class="row tight"><button type="button" onClick={() => onClose(null)}>Cancel</button></div>
      </div>
    </Dialog>
  );
}

function UnmatchedGroups({ kind, gen, onChange, currency }: { kind: Kind; gen: number; onChange: () => void; currency: string | undefined }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => kind.groups({ page, size: PAGE }), [gen, page]);
  const [matching, setMatching] = useState<Unmatched | null>(null);
  const [matched, setMatched] = useState<string | null>(null);
  const a = useAction();
  const create = (u: Unmatched) => a.run(async () => {
    setMatched(null);
    await kind.create(u);
    onChange();
    return `${kind.noun === 'recording' ? 'Recording' : 'Product'} “${groupName(u)}” created; its lines are being matched.`;
  });
  const lines = list.data;
  return (
    <Section title={kind.section}>
      <p class="muted">{kind.about}</p>
      <ErrorBox error={list.error ?? a.error} /><Notice text={matched ?? a.done} />
      <Loading show={list.loading && !list.data} />
      <Table caption={`${kind.caption}${lines ? ` (${lines.pagination.total} groups)` : ''}`} rows={lines?.data} empty="Every line is matched."
        rowKey={(u, i) => `${u[kind.code]}|${u.title}|${u.artist}|${i}`} columns={[
          { label: kind.codeLabel, cell: (u) => u[kind.code] ?? '—' },
          { label: 'Title', cell: (u) => u.title ?? '—' },
          { label: 'Artist', cell: (u) => u.artist ?? '—' },
          { label: 'Lines', cell: (u) => u.lines, num: true },
          { label: 'Amount', cell: (u) => localMoney(u.amount, currency), num: true },
          { label: 'Action', cell: (u) => (
            <div class="row tight">
              <button type="button" class="primary" disabled={a.busy} onClick={() => { setMatched(null); setMatching(u); }} aria-label={`Match ${groupName(u)} to a ${kind.noun}`}>Match</button>
              <button type="button" disabled={a.busy} onClick={() => create(u)} aria-label={`Create ${kind.noun} ${u.title ?? u[kind.code] ?? ''}`}>Create {kind.noun}</button>
            </div>
          ) },
        ]} />
      {lines && lines.pagination.total > PAGE ? <Pager page={page} size={PAGE} total={lines.pagination.total} onPage={setPage} label={`${kind.section} pages`} /> : null}
      <MatchDialog kind={kind} group={matching} onClose={(done) => { setMatching(null); if (done) { setMatched(done); onChange(); } }} />
    </Section>
  );
}

export function Matching({ gen, onChange }: { gen: number; onChange: () => void }) {
  const base = useLoad(() => ok(client.GET('/settings/workspace')).then((r) => r.data.baseCurrency), []);
  return (
    <>
      <Suggestions gen={gen} onChange={onChange} />
      <UnmatchedGroups kind={KINDS.asset} gen={gen} onChange={onChange} currency={base.data} />
      <UnmatchedGroups kind={KINDS.product} gen={gen} onChange={onChange} currency={base.data} />
    </>
  );
}
