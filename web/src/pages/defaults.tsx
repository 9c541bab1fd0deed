/**
 * Defaults: values set once and used wherever they apply (the genre and copyright lines of new
 * catalogue items, the territories and sender of release deliveries, the checks a release must
 * pass). They are set for the whole workspace, a catalog, a label, an artist or a member; the
 * most specific one that sets a value wins. Each value says where it comes from; saved sets of
 * values (templates) are applied in one go.
 */
import { useState } from 'preact/hooks';
import { client, ok, type Answer } from '../api';
import { ErrorBox, Field, Loading, Notice, Section, Table, useAction, useLoad } from '../ui';

type Preview = Answer<'/defaultsettings/preview/resolve', 'post'>['data'];
type Level = Preview['chain'][number]['level'];
type Category = keyof Preview['settings'];
type Effective = Preview['settings'][Category][string];
type Template = Answer<'/defaultsettings/templates'>['data'][number];

const LEVELS: [Level, string][] = [['tenant', 'The whole workspace'], ['catalog', 'A catalog'], ['label', 'A label'], ['artist', 'An artist'], ['user', 'A member or payee']];
const LEVEL_WORDS: Record<string, string> = { tenant: 'the workspace', catalog: 'the catalog', label: 'the label', artist: 'the artist', user: 'the member', default: 'built in' };

type Kind = 'text' | 'list' | 'yesno' | { choices: [string, string][] };
interface FieldDef { category: Category; key: string; label: string; kind: Kind; hint?: string }
const FIELDS: FieldDef[] = [
  { category: 'content', key: 'genre', label: 'Genre', kind: 'text', hint: 'Given to new recordings, products and releases.' },
  { category: 'content', key: 'subGenre', label: 'Sub-genre', kind: 'text' },
  { category: 'content', key: 'language', label: 'Language of titles and descriptions', kind: 'text', hint: 'A language code such as en, fr or pt-BR.' },
  { category: 'content', key: 'labelName', label: 'Label name on new products and releases', kind: 'text' },
  { category: 'content', key: 'pLine', label: '℗ line (the recordings’ copyright)', kind: 'text', hint: 'For example “2026 Night Owl Records”.' },
  { category: 'content', key: 'cLine', label: '© line (the artwork’s copyright)', kind: 'text' },
  { category: 'content', key: 'parentalWarning', label: 'Parental warning of tracks not marked explicit', kind: { choices: [['NotExplicit', 'Not explicit'], ['Explicit', 'Explicit'], ['ExplicitContentEdited', 'Edited version'], ['NoAdviceAvailable', 'No advice available'], ['Unknown', 'Unknown']] } },
  { category: 'ddex', key: 'territories', label: 'Where releases are offered', kind: 'list', hint: 'Country codes separated by commas (GB, IE, FR), or Worldwide.' },
  { category: 'ddex', key: 'senderName', label: 'Sender name on release deliveries', kind: 'text' },
  { category: 'ddex', key: 'senderDpid', label: 'Your DDEX party id (PADPIDA…)', kind: 'text' },
  { category: 'ddex', key: 'recipientName', label: 'Who receives release deliveries', kind: 'text' },
  { category: 'ddex', key: 'recipientDpid', label: 'Their DDEX party id (PADPIDA…)', kind: 'text' },
  { category: 'ddex', key: 'messageControlType', label: 'Release deliveries are', kind: { choices: [['LiveMessage', 'Real deliveries'], ['TestMessage', 'Tests only']] } },
  { category: 'validation', key: 'requireTrackMedia', label: 'Refuse to deliver a release whose tracks have no audio', kind: 'yesno' },
  { category: 'validation', key: 'requireReleaseDate', label: 'Refuse to deliver a release without a release date', kind: 'yesno' },
];

/** Keys set by saved sets that this page does not edit, in words. */
const OTHER_WORDS: Record<string, string> = { commercialModels: 'Kinds of deals (subscription, with ads, sales…)', useTypes: 'Uses offered (streams, downloads…)', dealStartDate: 'First day of the deals', currency: 'Currency', priceTier: 'Price tier' };

function shown(v: unknown, kind: Kind): string {
  if (v === undefined || v === null) return '';
  if (kind === 'list') return (v as string[]).join(', ');
  if (kind === 'yesno') return v ? 'yes' : 'no';
  if (typeof kind === 'object') return kind.choices.find(([k]) => k === v)?.[1] ?? String(v);
  return String(v);
}
function parsed(text: string, kind: Kind): unknown {
  if (kind === 'list') return text.split(',').map((x) => x.trim()).filter(Boolean).map((x) => (/^worldwide$/i.test(x) ? 'Worldwide' : x.toUpperCase()));
  if (kind === 'yesno') return text === 'yes';
  return text.trim();
}

function Row({ f, eff, here, onChanged }: { f: FieldDef; eff: Effective | undefined; here: { level: Level; entityId: string }; onChanged: () => void }) {
  const setHere = !!eff && eff.level === here.level && eff.entityId === here.entityId;
  const [text, setText] = useState(setHere ? (f.kind === 'yesno' ? shown(eff!.value, 'yesno') : f.kind === 'list' ? shown(eff!.value, 'list') : String(eff!.value)) : f.kind === 'yesno' ? 'no' : typeof f.kind === 'object' ? f.kind.choices[0]![0] : '');
  const a = useAction();
  const from = !eff ? 'Not set' : setHere ? 'Set here' : `${shown(eff.value, f.kind)} (${eff.level === 'default' ? 'built in' : `from ${LEVEL_WORDS[eff.level]}`})`;
  const id = `def-${f.category}-${f.key}`;
  const save = () => a.run(async () => {
    const value = parsed(text, f.kind);
    const where = { entityType: here.level, entityId: here.entityId };
    if (setHere) await ok(client.PUT('/defaultsettings/{entityType}/{entityId}/{settingId}', { params: { path: { ...where, settingId: eff!.settingId! } }, body: { value } }));
    else await ok(client.POST('/defaultsettings/{entityType}/{entityId}', { params: { path: where }, body: { category: f.category, key: f.key, value } }));
    onChanged();
  });
  const remove = () => a.run(async () => { await ok(client.DELETE('/defaultsettings/{entityType}/{entityId}/{settingId}', { params: { path: { entityType: here.level, entityId: here.entityId, settingId: eff!.settingId! } } })); onChanged(); });
  return (
    <tr data-testid={id}>
      <td data-label="Default"><label for={id}>{f.label}</label>{f.hint ? <><br /><small class="muted">{f.hint}</small></> : null}</td>
      <td data-label="Value here">
        {f.kind === 'yesno' || typeof f.kind === 'object' ? (
          <select id={id} value={text} onChange={(e) => setText(e.currentTarget.value)}>
            {(f.kind === 'yesno' ? [['yes', 'Yes'], ['no', 'No']] : f.kind.choices).map(([k, l]) => <option key={k} value={k}>{l}</option>)}
          </select>
        ) : <input id={id} value={text} maxLength={f.kind === 'list' ? 2000 : 200} onInput={(e) => setText(e.currentTarget.value)} />}
        <ErrorBox error={a.error} />
      </td>
      <td data-label="In force">{from}</td>
      <td data-label="Actions">
        <div class="row tight">
          <button type="button" disabled={a.busy || (!text.trim() && f.kind === 'text')} onClick={save} aria-label={`Save ${f.label}`}>Save</button>
          {setHere ? <button type="button" onClick={remove} aria-label={`Inherit ${f.label}`}>Inherit</button> : null}
        </div>
      </td>
    </tr>
  );
}

function Values({ level, entityId }: { level: Level; entityId: string }) {
  const preview = useLoad(() => ok(client.POST('/defaultsettings/preview/resolve', { body: { entityType: level, entityId } })), [level, entityId]);
  const templates = useLoad(() => ok(client.GET('/defaultsettings/templates')), []);
  const a = useAction();
  const p = preview.data?.data;
  const here = p?.chain[0];
  const apply = (t: Template) => a.run(async () => {
    const r = (await ok(client.POST('/defaultsettings/templates/{templateId}/apply', { params: { path: { templateId: t.id } }, body: { entityType: here!.level, entityId: here!.entityId } }))).data;
    preview.reload();
    return `“${t.name}” applied: ${r.created.length} set${r.skipped.length ? `, ${r.skipped.length} left as they were (already set here)` : ''}.`;
  });
  return (
    <>
      <Loading show={preview.loading && !p} /><ErrorBox error={preview.error} />
      {p && here ? (
        <>
          <p class="muted" data-testid="defaults-chain">Where values come from, first match wins: {p.chain.map((c) => `${LEVEL_WORDS[c.level]}${c.name ? ` ${c.name}` : ''}`).join(' → ')} → built in.</p>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Defaults">
            <table>
              <caption>Defaults for {LEVEL_WORDS[here.level]}{here.name ? ` ${here.name}` : ''}</caption>
              <thead><tr><th scope="col">Default</th><th scope="col">Value here</th><th scope="col">In force</th><th scope="col">Actions</th></tr></thead>
              <tbody>
                {FIELDS.map((f) => {
                  const eff = p.settings[f.category]?.[f.key];
                  return <Row key={`${here.entityId}:${f.category}.${f.key}:${eff?.settingId ?? ''}:${JSON.stringify(eff?.value ?? null)}`} f={f} eff={eff} here={here} onChanged={preview.reload} />;
                })}
              </tbody>
            </table>
          </div>
          <h3>Apply a saved set</h3>
          <ErrorBox error={templates.error ?? a.error} /><Notice text={a.done} />
          <Table<Template> caption="Saved sets of defaults" rows={templates.data?.data} rowKey={(t) => t.id} empty="None yet." columns={[
            { label: 'Name', cell: (t) => t.name },
            { label: 'What it sets', cell: (t) => t.settings.map((s) => FIELDS.find((f) => f.category === s.category && f.key === s.key)?.label ?? OTHER_WORDS[s.key] ?? s.key).join('; ') },
            { label: 'Actions', cell: (t) => <button type="button" disabled={a.busy} onClick={() => apply(t)} aria-label={`Apply here: ${t.name}`}>Apply here</button> },
          ]} />
        </>
      ) : null}
    </>
  );
}

/** The entities of a level, to choose one. */
function useEntities(level: Level) {
  return useLoad(async (): Promise<[string, string][]> => {
    if (level === 'tenant') return [['current', 'This workspace']];
    if (level === 'catalog') return (await ok(client.GET('/catalogs'))).data.map((c) => [c.id, c.name]);
    if (level === 'label') return (await ok(client.GET('/labels'))).data.map((l) => [l.id, l.name]);
    if (level === 'artist') return (await ok(client.GET('/artist/', { params: { query: { size: 200 } } }))).data.map((x) => [x.id, x.name]);
    return (await ok(client.GET('/user/', { params: { query: { size: 200 } } }))).data.map((m) => [m.id, [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email]);
  }, [level]);
}

export function DefaultsPage() {
  const [level, setLevel] = useState<Level>('tenant');
  const [chosen, setChosen] = useState<string>('current');
  const entities = useEntities(level);
  const list = entities.data ?? [];
  const entityId = list.some(([id]) => id === chosen) ? chosen : list[0]?.[0];
  return (
    <>
      <h1>Defaults</h1>
      <p>Values set once and used wherever they apply: the genre and copyright lines of new recordings, products and releases, where releases are offered and who receives their deliveries, and the checks a release must pass first. Set them for the whole workspace, or for one catalog, label, artist or member: the most specific one wins.</p>
      <Section title="Defaults">
        <div class="row wrap">
          <Field label="Set defaults for">
            <select value={level} onChange={(e) => { setLevel(e.currentTarget.value as Level); setChosen(''); }}>
              {LEVELS.map(([k, l]) => <option key={k} value={k}>{l}</option>)}
            </select>
          </Field>
          {level !== 'tenant' ? (
            <Field label="Which one">
              <select value={entityId ?? ''} onChange={(e) => setChosen(e.currentTarget.value)}>
                {list.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
              </select>
            </Field>
          ) : null}
        </div>
        <ErrorBox error={entities.error} />
        {entities.data && !list.length ? <p class="muted">There is none yet.</p> : null}
        {entityId ? <Values key={`${level}:${entityId}`} level={level} entityId={entityId} /> : null}
      </Section>
    </>
  );
}
