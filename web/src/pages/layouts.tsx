/**
 * Statement layouts (/app/layouts): teaching Rondo a layout from a sample statement (a file
 * uploaded here, or a file waiting for confirmation) as a form, never JSON: the proposed draft,
 * each column's role, the text format, the currency and where it came from, which column is the
 * net amount, the draft's doubts in words; a preview of the parsed lines with every field,
 * totals per currency and the file's own totals; a dry run; saving it as the workspace's layout,
 * after which the file that prompted it is read again. Built-in layouts are shown read-only in
 * the same form and can be the starting point of the workspace's own; sources switched on and off.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, client, ok, type ApiPath } from '../api';
import { ErrorBox, Field, Link, Loading, Notice, Section, Table, decimal, param, pct, useAction, useLoad } from '../ui';
import { currencyName } from '../words';
import { colId, colLabel, columnOf, mappingWords, minus } from './layout-words';

type Any = Record<string, any>;
type Pattern = Any;

/** The line fields, in people's words. */
const FIELDS: [string, string][] = [
  ['saleMonth', 'Sale month or date'], ['salePeriodStart', 'Sale period start'], ['salePeriodEnd', 'Sale period end'],
  ['accountingPeriod', 'Accounting period'], ['dsp', 'Store'], ['country', 'Country'], ['isrc', 'ISRC'], ['upc', 'UPC / EAN'],
  ['trackTitle', 'Title'], ['artist', 'Artist'], ['releaseTitle', 'Release'], ['label', 'Label'], ['saleType', 'Sale type'],
  ['quantity', 'Quantity'], ['gross', 'Gross amount (before fees)'], ['grossCurrency', 'Currency of the gross amount'],
  ['net', 'Net amount (what is owed)'], ['currency', 'Currency'], ['exchangeRate', 'Exchange rate'],
];
const FIELD_WORDS = Object.fromEntries(FIELDS);
const ENCODINGS: [string, string][] = [['auto', 'Recognise it'], ['utf-8', 'UTF-8'], ['utf-16le', 'UTF-16'], ['windows-1252', 'Western (Windows-1252)'], ['latin1', 'Latin-1'], ['iso-8859-15', 'Latin-9 (ISO-8859-15)'], ['windows-1250', 'Central European (Windows-1250)'], ['windows-1251', 'Cyrillic (Windows-1251)'], ['cp932', 'Japanese (Shift JIS)']];
const DELIMITERS: [string, string][] = [['auto', 'Recognise it'], [',', 'Comma'], [';', 'Semicolon'], ['\t', 'Tab'], ['|', 'Vertical bar']];
const BASIS: Record<string, string> = { gross: 'Gross: before the sender\'s fees', net: 'Net: after fees (what is owed)', fee: 'A fee or deduction', unknown: 'The sample does not say' };
const CURRENCY_FROM: Record<string, string> = {
  column: 'from a column of the file', header: 'named in a column header', fileName: 'named in the file name',
  workspace: 'a guess: your workspace\'s currency, no part of the file names one', none: 'not found: choose it',
};
const ACTIONS: Record<string, string> = { skip: 'left out', total: 'read as the file\'s own total', deduction: 'read as a deduction (a cost or fee), not a sale', stop: 'the end of the lines' };

/** A sample statement: a file already uploaded (fileId) or one chosen here. */
interface Sample { fileId?: string; file?: File; fileName: string }
/** What the layout form edits. */
interface Editing {
  pattern: Pattern;
  /** A built-in layout shown as it is. */
  readOnly?: boolean;
  /** The workspace source being changed (a new version when saved). */
  sourceId?: string;
  title: string;
  /** The draft's findings, when the layout was proposed from the sample. */
  draft?: Any;
}

/** Sends the sample with a request: JSON with the file's id, or the chosen file as multipart. */
function sampleCall(path: Extract<ApiPath, '/sources/validate' | '/sources/dry-run' | '/sources/draft'>, sample: Sample, pattern?: Pattern) {
  if (sample.fileId) return api<{ data: Any }>('POST', path, { body: { fileId: sample.fileId, ...(pattern ? { pattern } : {}) } });
  const form = new FormData();
  if (pattern) form.append('pattern', JSON.stringify(pattern));
  form.append('file', sample.file!, sample.file!.name);
  return api<{ data: Any }>('POST', path, { form });
}

/** A checker's message about a pattern, with the field named in words. */
function problemWords(s: string): string {
  return s
    .replace(/\/columns\/(\w+)/g, (_, f) => `“${FIELD_WORDS[f] ?? f}”`)
    .replace(/\/format\/delimiter/g, 'the delimiter').replace(/\/format\/encoding/g, 'the encoding')
    .replace(/^\/key\b/, 'The short name (key)').replace(/^\/name\b/, 'The name').replace(/^\/aggregator\b/, 'The sender')
    .replace(/^\/ /, '');
}

/** The layout as a form. */
function LayoutForm({ e, onChange }: { e: Editing; onChange: (p: Pattern) => void }) {
  const p = e.pattern;
  const cols: Any[] = e.draft?.columns ?? [];
  const header = p.format?.header !== 'none';
  const set = (patch: Pattern) => onChange({ ...p, ...patch });
  const setFormat = (patch: Any) => {
    const format = { ...p.format, ...patch };
    for (const k of Object.keys(format)) if (format[k] === undefined) delete format[k];
    set({ format });
  };
  const roleOf = (id: string) => FIELDS.find(([f]) => columnOf(p.columns?.[f]) === id)?.[0] ?? '';
  const setRole = (c: Any, field: string) => {
    const id = colId(c);
    const columns: Any = { ...p.columns };
    for (const [f] of FIELDS) if (f !== field && columnOf(columns[f]) === id) delete columns[f];
    if (field && columnOf(columns[field]) !== id) columns[field] = header && c.name ? { from: c.name } : { column: c.index };
    set({ columns });
  };
  const currencyConst = p.columns?.currency?.const !== undefined && columnOf(p.columns.currency) === null;
  const money: Any[] = e.draft?.money ?? [];
  return (
    <fieldset disabled={e.readOnly} class="layout-form">
      <legend>{e.title}</legend>
      <div class="grid2">
        <Field label="Name"><input required value={p.name ?? ''} onInput={(ev) => set({ name: ev.currentTarget.value })} /></Field>
        <Field label="Short name (key)" hint="Lower case letters, digits, dots and dashes. The same key as a built-in layout replaces it for your workspace.">
          <input required pattern="[a-z0-9][a-z0-9._\-]{1,63}" value={p.key ?? ''} onInput={(ev) => set({ key: ev.currentTarget.value })} />
        </Field>
        <Field label="Who sends these statements"><input required value={p.aggregator ?? ''} onInput={(ev) => set({ aggregator: ev.currentTarget.value })} /></Field>
        <Field label="Income">
          <select value={p.income ?? 'recording'} onChange={(ev) => set({ income: ev.currentTarget.value === 'recording' ? undefined : ev.currentTarget.value })}>
            <option value="recording">Recording income (paid by recording splits)</option>
            <option value="publishing">Publishing income (society and mechanical: works)</option>
          </select>
        </Field>
      </div>
      {e.draft?.income?.why ? <p class="muted">{e.draft.income.why}</p> : null}

      <h3>The file</h3>
      <div class="grid2">
        <Field label="Encoding" hint={e.draft?.encoding ? `The sample reads as ${ENCODINGS.find(([v]) => v === e.draft!.encoding)?.[1] ?? e.draft.encoding}.` : undefined}>
          <select value={p.format?.encoding ?? 'auto'} onChange={(ev) => setFormat({ encoding: ev.currentTarget.value })}>
            {ENCODINGS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </Field>
        <Field label="Delimiter">
          <select value={p.format?.delimiter ?? 'auto'} onChange={(ev) => setFormat({ delimiter: ev.currentTarget.value })}>
            {DELIMITERS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </Field>
        <Field label="Header row">
          <select value={header ? 'row' : 'none'} onChange={(ev) => setFormat({ header: ev.currentTarget.value === 'none' ? 'none' : undefined })}>
            <option value="row">A header row names the columns</option>
            <option value="none">No header row: columns by position</option>
          </select>
        </Field>
        <Field label="Lines before the header" hint={e.draft?.headerLine ? `In the sample the header is line ${e.draft.headerLine}. Empty: Rondo looks for it.` : 'Empty: Rondo looks for it in the first 50 lines.'}>
          <input type="number" min={0} max={1000} value={p.format?.linesBeforeHeader ?? ''} onInput={(ev) => setFormat({ linesBeforeHeader: ev.currentTarget.value === '' ? undefined : Number(ev.currentTarget.value) })} />
        </Field>
        <Field label="Decimal mark">
          <select value={p.format?.decimal ?? '.'} onChange={(ev) => setFormat({ decimal: ev.currentTarget.value === '.' ? undefined : ev.currentTarget.value })}>
            <option value=".">Point (1,234.56)</option><option value=",">Comma (1.234,56)</option><option value="auto">Either, value by value</option>
          </select>
        </Field>
        <Field label="Dates">
          <select value={p.format?.dayFirst ? 'day' : 'month'} onChange={(ev) => setFormat({ dayFirst: ev.currentTarget.value === 'day' ? true : undefined })}>
            <option value="month">Month first (03/31/2024)</option><option value="day">Day first (31/03/2024)</option>
          </select>
        </Field>
      </div>
      <Field label="Statement period from the file name (optional)" hint="A pattern with the groups start and end, e.g. _(?<start>\d{6})\.csv$. Without it, the period is the lines' first and last sale months.">
        <input value={p.period?.fileName ?? ''} onInput={(ev) => set({ period: ev.currentTarget.value ? { ...p.period, fileName: ev.currentTarget.value } : undefined })} />
      </Field>
      <p class="muted">Recognised by the header: {(p.detect?.headers ?? []).join(', ') || '—'}</p>

      {cols.length ? (
        <>
          <h3>Each column's role</h3>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Each column's role">
            <table>
              <caption>Columns of the sample and what each one is</caption>
              <thead><tr><th scope="col">Column</th><th scope="col">Examples</th><th scope="col">Role</th><th scope="col" class="num">Draft's confidence</th></tr></thead>
              <tbody>
                {cols.map((c) => (
                  <tr key={c.index}>
                    <td data-label="Column">{colLabel(c)}</td>
                    <td data-label="Examples" class="samples">{c.samples.join(' · ') || '—'}</td>
                    <td data-label="Role">
                      <select aria-label={`Role of ${colLabel(c)}`} value={roleOf(colId(c))} onChange={(ev) => setRole(c, ev.currentTarget.value)}>
                        <option value="">Not read</option>
                        {FIELDS.map(([f, l]) => <option key={f} value={f}>{l}</option>)}
                      </select>
                    </td>
                    <td data-label="Draft's confidence" class="num">{c.role ? pct(c.confidence) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}

      <h3>Money</h3>
      {cols.length ? (
        <Field label="Net amount column (what the sender owes)">
          <select value={columnOf(p.columns?.net) ?? ''} onChange={(ev) => { const c = cols.find((x) => colId(x) === ev.currentTarget.value); if (c) setRole(c, 'net'); }}>
            <option value="">Choose…</option>
            {cols.map((c) => <option key={c.index} value={colId(c)}>{colLabel(c)}</option>)}
          </select>
        </Field>
      ) : <p>Net amount: {mappingWords(p.columns?.net)}</p>}
      {money.length ? (
        <Table<Any> caption="Money columns: gross or net of fees" rows={money} rowKey={(m) => String(m.index)} columns={[
          { label: 'Column', cell: (m) => m.name ?? `Column ${m.index + 1}` },
          { label: 'Draft reads it as', cell: (m) => BASIS[m.basis] ?? m.basis },
          { label: 'Why', cell: (m) => `${m.why}${m.wholeNumbers ? ' Every value is a whole number: a count rather than money?' : ''}` },
        ]} />
      ) : null}
      <fieldset class="inner">
        <legend>Currency</legend>
        <label class="check"><input type="radio" name="currency-from" checked={!currencyConst} disabled={!cols.length && currencyConst} onChange={() => {
          const c = cols.find((x) => x.role === 'currency');
          if (c) setRole(c, 'currency');
        }} /> In a column of the file{!currencyConst ? `: ${mappingWords(p.columns?.currency)}` : ''}</label>
        <label class="check"><input type="radio" name="currency-from" checked={currencyConst} onChange={() => set({ columns: { ...p.columns, currency: { const: p.columns?.currency?.const ?? e.draft?.currency?.code ?? 'XXX' } } })} /> Every line is in one currency</label>
        {currencyConst ? (
          <Field label="Currency code" hint={p.columns.currency.const && p.columns.currency.const !== 'XXX' ? currencyName(p.columns.currency.const) : 'Three letters, e.g. EUR'}>
            <input required pattern="[A-Za-z]{3}" maxLength={3} value={p.columns.currency.const} onInput={(ev) => set({ columns: { ...p.columns, currency: { const: ev.currentTarget.value.toUpperCase() } } })} />
          </Field>
        ) : null}
        {e.draft?.currency ? <p class="muted" data-testid="currency-source">The draft's currency{e.draft.currency.code ? ` (${e.draft.currency.code})` : ''} is {CURRENCY_FROM[e.draft.currency.source] ?? e.draft.currency.source}. {e.draft.currency.why}</p> : null}
      </fieldset>

      {(e.draft?.rowFilters ?? []).length || (p.rows ?? []).length ? (
        <>
          <h3>Rows that are not sales</h3>
          <ul>
            {(e.draft?.rowFilters ?? []).map((f: Any, i: number) => <li key={i}>Rows whose {f.column ? `“${f.column}”` : `cell ${f.cell + 1}`} matches “{f.matches}” are {ACTIONS[f.action] ?? f.action} ({f.rows} in the sample): {f.why}</li>)}
            {!e.draft ? (p.rows as Any[]).map((r, i) => <li key={i}>Rows whose {r.column ? `“${r.column}”` : `cell ${(r.cell ?? 0) + 1}`} {r.equals ? `is ${r.equals.join(' or ')}` : r.matches ? `matches “${r.matches}”` : `has at most ${r.maxFilledCells} filled cells`} are {ACTIONS[r.action ?? 'skip']}</li>) : null}
          </ul>
        </>
      ) : null}

      <h3>How each line field is read</h3>
      <Table<[string, string]> caption="How each line field is read" rows={FIELDS.filter(([f]) => p.columns?.[f])} rowKey={([f]) => f} columns={[
        { label: 'Field', cell: ([, l]) => l }, { label: 'Read from', cell: ([f]) => mappingWords(p.columns[f]) },
      ]} />
      {p.extra && Object.keys(p.extra).length ? <p class="muted">Also kept on each line: {Object.entries(p.extra).map(([k, m]) => `${k} (${mappingWords(m as Any)})`).join('; ')}</p> : null}
    </fieldset>
  );
}

const LINE_COLUMNS: [string, string][] = [
  ['lineNo', 'Line'], ['saleMonth', 'Sale month'], ['dsp', 'Store'], ['country', 'Country'], ['trackTitle', 'Title'], ['artist', 'Artist'],
  ['isrc', 'ISRC'], ['upc', 'UPC'], ['releaseTitle', 'Release'], ['saleType', 'Sale type'], ['quantity', 'Quantity'], ['gross', 'Gross'], ['net', 'Net amount'], ['currency', 'Currency'],
];

/** The check of the layout on the sample: lines with every field, totals per currency, the file's own totals and the difference. */
/** Where the sample's statement period came from, in words: the file name (when the layout's pattern matches it) or the lines' sale months. */
function periodSource(pattern: Pattern | undefined, fileName: string | undefined): string {
  const named = pattern?.period?.fileName;
  if (!named) return 'the first and last sale months of the lines';
  let m: RegExpExecArray | null = null;
  try { m = new RegExp(named, 'i').exec(fileName ?? ''); } catch { /* the check names a pattern that is no pattern */ }
  return m?.groups?.start ? `taken from the file name (${fileName})` : `the first and last sale months of the lines: the file name ${fileName ?? ''} does not match the period pattern`;
}

function Preview({ v, fileName }: { v: Any; fileName?: string }) {
  const lines: Any[] = v.lines ?? [];
  const shown = LINE_COLUMNS.filter(([k]) => k === 'lineNo' || k === 'net' || k === 'currency' || k === 'trackTitle' || lines.some((l) => l[k] !== null && l[k] !== undefined && l[k] !== ''));
  const extras = [...new Set(lines.flatMap((l) => Object.keys(l.extra ?? {})))];
  const totals: Record<string, string> = v.totals ?? {};
  const own: Record<string, string> = v.control?.totals ?? {};
  return (
    <div class="stack" data-testid="preview">
      {v.valid ? <p class="notice" role="status">{v.rows === undefined ? 'The layout is complete. Choose a sample statement above to see the lines it reads.' : `This layout reads the sample${v.reconciles === true ? ', and its totals match the file\'s own' : ''}.`}</p> : null}
      {v.errors?.length ? <div class="error" role="alert"><strong>This layout does not read the sample yet:</strong><ul>{v.errors.map((x: string) => <li key={x}>{problemWords(x)}</li>)}</ul></div> : null}
      {v.warnings?.length ? <div class="warn"><strong>Check these guesses before saving:</strong><ul>{v.warnings.map((x: string) => <li key={x}>{problemWords(x)}</li>)}</ul></div> : null}
      {v.rows ? <p>{v.rows.read} rows read: {v.rows.ingested} lines, {v.rows.failed} rejected, {v.rows.skipped} left out.</p> : null}
      {v.period?.start ? <p data-testid="statement-period">Statement period: {v.period.start} to {v.period.end ?? '…'}, {periodSource(v.ran, fileName)}.</p> : null}
      {v.rows === undefined ? null : <>
      <Table<[string, string]> caption="Totals per currency" rows={Object.entries(totals)} rowKey={([c]) => c} empty="No amount read." columns={[
        { label: 'Currency', cell: ([c]) => `${currencyName(c)} (${c})` },
        { label: 'Read', cell: ([, t]) => decimal(t, Math.max(2, (t.split('.')[1] ?? '').length)), num: true },
        ...(Object.keys(own).length ? [
          { label: 'The file\'s own total', cell: ([c]: [string, string]) => (own[c] !== undefined ? decimal(own[c]!, Math.max(2, (own[c]!.split('.')[1] ?? '').length)) : '—'), num: true },
          { label: 'Difference', cell: ([c, t]: [string, string]) => (own[c] !== undefined ? minus(t, own[c]!) : '—'), num: true },
        ] : []),
      ]} />
      {v.control?.rows !== undefined ? <p>The file says it has {v.control.rows} lines; {(v.rows?.ingested ?? 0) + (v.rows?.failed ?? 0)} were read.</p> : null}
      {v.skipped?.rows ? <p class="muted">{v.skipped.rows} rows left out, holding {Object.entries(v.skipped.totals ?? {}).map(([c, t]) => `${t} ${c}`).join(', ') || 'no amount'}.</p> : null}
      {v.deductions?.rows ? <p class="muted">{v.deductions.rows} cost or fee rows, taking off {Object.entries(v.deductions.totals ?? {}).map(([c, t]) => `${t} ${c}`).join(', ')}.</p> : null}
      {(v.unreadable ?? []).map((u: Any) => <p key={u.field} class="problem">{u.count} values of “{u.column}” ({FIELD_WORDS[u.field] ?? u.field}) cannot be read, e.g. {u.examples.map((x: Any) => `“${x.value}” (line ${x.lineNo})`).join(', ')}.</p>)}
      <Table<Any> caption={`The first ${lines.length} lines as they would be stored`} rows={lines} rowKey={(l) => String(l.lineNo)} columns={[
        ...shown.map(([k, label]) => ({ label, num: k === 'quantity' || k === 'gross' || k === 'net' || k === 'lineNo', cell: (l: Any) => (l[k] ?? '—') as string })),
        ...extras.map((k) => ({ label: k, cell: (l: Any) => l.extra?.[k] ?? '—' })),
      ]} />
      </>}
    </div>
  );
}

const SETTLED = ['processed', 'failed', 'needs_confirmation'];

/** The editor: the form, check (preview), dry run and save. */
function Editor({ e, setE, sample, onSaved }: { e: Editing; setE: (e: Editing | null) => void; sample: Sample | null; onSaved: () => void }) {
  const [check, setCheck] = useState<Any | null>(null);
  const [dry, setDry] = useState<Any | null>(null);
  const [result, setResult] = useState<Any | null>(null);
  const a = useAction();
  // checks run apart from saving: the check made after a save does not wipe what the save said
  const c = useAction();
  const busy = a.busy || c.busy;
  const runCheck = (pattern: Pattern) => c.run(async () => {
    setDry(null);
    if (!sample) {
      return void setCheck((await ok(client.POST('/sources/validate', { body: { pattern } as never })) /* JSON {pattern} or multipart: the document names the multipart form */).data);
    }
    setCheck({ ...(await sampleCall('/sources/validate', sample, pattern)).data, ran: pattern });
  });
  // a draft or a layout opened with a sample is checked at once
  useEffect(() => { if (sample && !e.readOnly) void runCheck(e.pattern); else setCheck(null); }, [e.title, sample?.fileId, sample?.file]);

  const save = () => a.run(async () => {
    const p = e.pattern;
    const saved = e.sourceId
      ? (await ok(client.PUT('/sources/{id}', { params: { path: { id: e.sourceId } }, body: { pattern: p } }))).data
      : (await ok(client.POST('/sources', { body: { pattern: p } }))).data;
    setE({ ...e, sourceId: saved.id, title: `Your layout: ${p.name}` });
    onSaved();
    if (!sample?.fileId) return `${p.name} is saved as your workspace's layout: files of this layout are read with it from now on.`;
    // the file that prompted it is read again with the saved layout
    const f = (await ok(client.GET('/file/{id}', { params: { path: { id: sample.fileId } } }))).data;
    const how = f.status === 'needs_confirmation' ? 'confirm-detection' : 'reprocess';
    const at = { params: { path: { id: sample.fileId! } }, body: { source: saved.source.id } };
    if (how === 'reprocess') await ok(client.POST('/file/reprocess/{id}', at));
    else await ok(client.POST('/file/confirm-detection/{id}', at));
    let now = f;
    for (let i = 0; i < 120; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      now = (await ok(client.GET('/file/{id}', { params: { path: { id: sample.fileId } } }))).data;
      if (SETTLED.includes(now.status) && now.updatedAt !== f.updatedAt && !(how === 'confirm-detection' && now.status === 'needs_confirmation')) break;
    }
    setResult(now);
    return `${p.name} is saved as your workspace's layout, and ${sample.fileName} was read again with it.`;
  });

  return (
    <Section title={e.readOnly ? 'Built-in layout' : 'Your layout'} id="h-editor">
      <form class="stack" onSubmit={(ev) => { ev.preventDefault(); void save(); }}>
        {e.draft?.warnings?.length && !e.readOnly ? (
          <div class="warn" data-testid="draft-warnings"><strong>The draft is unsure about:</strong><ul>{e.draft.warnings.map((w: string) => <li key={w}>{problemWords(w)}</li>)}</ul></div>
        ) : null}
        {e.draft?.known?.length ? <p class="muted">Layouts Rondo already has whose header fits this file: {e.draft.known.map((k: Any) => k.key).join(', ')}.</p> : null}
        <LayoutForm e={e} onChange={(pattern) => setE({ ...e, pattern })} />
        <ErrorBox error={a.error ?? c.error} /><Notice text={a.done} />
        {e.readOnly ? (
          <div class="row tight">
            <button type="button" class="primary" onClick={() => setE({ pattern: { ...e.pattern, name: `${e.pattern.name} (this workspace)` }, title: `Your layout, from ${e.pattern.name}` })}>Use as a starting point</button>
            <button type="button" onClick={() => setE(null)}>Close</button>
          </div>
        ) : (
          <div class="row tight">
            <button type="button" disabled={busy} onClick={() => runCheck(e.pattern)}>{sample ? 'Check on the sample' : 'Check the layout'}</button>
            {sample ? <button type="button" disabled={busy} onClick={() => a.run(async () => { setDry((await sampleCall('/sources/dry-run', sample, e.pattern)).data); })}>Dry run</button> : null}
            <button type="submit" class="primary" disabled={busy}>{sample?.fileId ? `Save and read ${sample.fileName} again` : 'Save as your layout'}</button>
            <button type="button" onClick={() => setE(null)}>Close</button>
          </div>
        )}
      </form>
      {busy ? <p class="muted" role="status">Working…</p> : null}
      {result ? (
        <p class={result.status === 'processed' ? 'notice' : 'error'} data-testid="reread-result">
          {result.fileName}: {result.status.replace(/_/g, ' ')}, {result.counts?.rowsIngested ?? 0} lines; totals {Object.entries(result.totals ?? {}).map(([c, t]) => `${decimal(t as string)} ${c}`).join(', ') || '—'}.
          {' '}<Link to="/statements">See it with your statements</Link>
        </p>
      ) : null}
      {dry ? <DryRun d={dry} patternKey={e.pattern.key} /> : null}
      {check ? <Preview v={check} fileName={sample?.fileName} /> : null}
    </Section>
  );
}

/** Which layout reads the sample, and how it went. */
function DryRun({ d, patternKey }: { d: Any; patternKey?: string }) {
  const best = d.detection?.[0];
  const read = d.read;
  return (
    <div class="stack" data-testid="dry-run-result">
      <h3>Dry run</h3>
      <p>{best ? `${best.patternKey === patternKey ? 'This layout' : `The layout ${best.patternKey}`} recognises the file best (${pct(best.score)}${best.score < d.threshold ? ', below the ' + pct(d.threshold) + ' Rondo needs to read it without asking' : ''}).` : 'No layout recognises this file.'}</p>
      {read?.failed ? <p class="error" role="alert">Reading with {read.pattern} failed: {problemWords(read.failed)}</p> : null}
      {read?.summary ? (
        <p data-testid="dry-run-summary">Read with {read.pattern}: {read.summary.rowsRead} rows, {read.summary.rowsIngested} ingested, {read.summary.rowsFailed} failed, {read.summary.rowsSkipped} skipped; totals {Object.entries(read.summary.totals ?? {}).map(([c, v]) => `${v} ${c}`).join(', ') || '—'}</p>
      ) : null}
      <p class="muted">Nothing was saved.</p>
    </div>
  );
}

/** Where a layout starts: a sample statement chosen here, or a file waiting for confirmation. */
function Start({ onDraft, onSample, onDry }: { onDraft: (s: Sample) => void; onSample: (s: Sample) => void; onDry: (s: Sample) => void }) {
  const waiting = useLoad(() => ok(client.GET('/file/', { params: { query: { status: 'needs_confirmation', size: 50 } } })), []);
  const [file, setFile] = useState<File | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const pick = (go: (s: Sample) => void) => { if (!file) { setErr('Choose a sample statement first.'); return; } setErr(null); const s = { file, fileName: file.name }; onSample(s); go(s); };
  return (
    <Section title="Teach Rondo a layout">
      <p class="muted">Rondo proposes a layout from a sample statement; you correct it in the form, check it on the sample and save it for your workspace. Nothing is saved before that.</p>
      <div class="stack narrow">
        <Field label="Sample statement"><input type="file" onChange={(ev) => setFile(ev.currentTarget.files?.[0] ?? null)} /></Field>
        {err ? <p class="error" role="alert">{err}</p> : null}
        <div class="row tight">
          <button type="button" class="primary" onClick={() => pick(onDraft)}>Propose a layout</button>
          <button type="button" onClick={() => pick(onDry)}>Which layout reads it?</button>
        </div>
      </div>
      <h3>Files waiting for confirmation</h3>
      <ErrorBox error={waiting.error} />
      <Table<Any> caption="Files waiting for confirmation" rows={waiting.data?.data} rowKey={(f) => f.id} empty="No file is waiting: every statement was recognised." columns={[
        { label: 'File', cell: (f) => f.fileName },
        { label: 'Detected', cell: (f) => f.source?.name ?? 'no layout' },
        { label: 'Teach', cell: (f) => <button type="button" onClick={() => onDraft({ fileId: f.id, fileName: f.fileName })} aria-label={`Propose a layout from ${f.fileName}`}>Propose a layout</button> },
      ]} />
    </Section>
  );
}

function Sources({ gen, onEdit, onView }: { gen: number; onEdit: (s: Any) => void; onView: (key: string) => void }) {
  const configured = useLoad(() => ok(client.GET('/sources')), [gen]);
  const builtin = useLoad(() => ok(client.GET('/file/sources')), []);
  const a = useAction();
  const toggle = (s: Any) => a.run(async () => {
    const at = { params: { path: { id: s.id } } };
    await ok(s.active ? client.POST('/sources/{id}/deactivate', at) : client.POST('/sources/{id}/activate', at));
    configured.reload();
    return `${s.name} ${s.active ? 'is no longer used to recognise files' : 'is used to recognise files again'}.`;
  });
  return (
    <Section title="Your workspace's layouts">
      <ErrorBox error={configured.error ?? builtin.error ?? a.error} /><Notice text={a.done} />
      <Table<Any> caption="Your workspace's layouts" rows={configured.data?.data} rowKey={(s) => s.id} empty="None yet: every built-in layout is used to recognise files." columns={[
        { label: 'Name', cell: (s) => s.name },
        { label: 'Kind', cell: (s) => (s.source.scope === 'tenant' ? 'Your own' : 'Built-in') },
        { label: 'In use', cell: (s) => (s.active ? 'Yes' : 'No') },
        { label: 'Actions', cell: (s) => (
          <div class="row tight">
            {s.source.scope === 'tenant' ? <button type="button" onClick={() => onEdit(s)} aria-label={`Change ${s.name}`}>Change</button> : <button type="button" onClick={() => onView(s.source.key)} aria-label={`View ${s.name}`}>View</button>}
            <button type="button" onClick={() => toggle(s)} aria-label={`${s.active ? 'Deactivate' : 'Activate'} ${s.name}`}>{s.active ? 'Deactivate' : 'Activate'}</button>
          </div>
        ) },
      ]} />
      <details>
        <summary>Built-in layouts ({builtin.data?.data.length ?? 0})</summary>
        <Table<Any> caption="Built-in layouts" rows={builtin.data?.data} rowKey={(s) => s.id} columns={[
          { label: 'Name', cell: (s) => s.name }, { label: 'Sender', cell: (s) => s.aggregator ?? '—' },
          { label: 'View', cell: (s) => <button type="button" onClick={() => onView(s.key)} aria-label={`View ${s.name}`}>View</button> },
        ]} />
      </details>
    </Section>
  );
}

export function LayoutsPage() {
  const [sample, setSample] = useState<Sample | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [dry, setDry] = useState<Any | null>(null);
  const [gen, setGen] = useState(0);
  const a = useAction();
  const show = (e: Editing | null) => { setEditing(e); if (e) queueMicrotask(() => document.getElementById('h-editor')?.scrollIntoView()); };
  const draft = (s: Sample) => a.run(async () => {
    setSample(s); setDry(null);
    const d = (await sampleCall('/sources/draft', s)).data;
    show({ pattern: d.pattern, draft: d, title: `Proposed from ${s.fileName}` });
  });
  const dryRun = (s: Sample) => a.run(async () => { setDry((await sampleCall('/sources/dry-run', s)).data); });
  const view = (key: string) => a.run(async () => {
    const b = (await ok(client.GET('/sources/builtin/{key}', { params: { path: { key: encodeURIComponent(key) } } }))).data;
    show({ pattern: b.pattern, readOnly: true, title: `${b.name} (built in, version ${b.version})` });
  });
  const edit = (s: Any) => a.run(async () => {
    const full = (await ok(client.GET('/sources/{id}', { params: { path: { id: s.id } } }))).data;
    show({ pattern: full.pattern, sourceId: s.id, title: `Your layout: ${s.name}` });
  });
  // a file waiting for confirmation, from the Statements page
  useEffect(() => {
    const id = param('file');
    if (!id) return;
    void a.run(async () => {
      const f = (await ok(client.GET('/file/{id}', { params: { path: { id: encodeURIComponent(id) } } }))).data;
      const s = { fileId: f.id, fileName: f.fileName };
      setSample(s);
      const d = (await sampleCall('/sources/draft', s)).data;
      show({ pattern: d.pattern, draft: d, title: `Proposed from ${f.fileName}` });
    });
  }, []);
  return (
    <div class="layouts">
      <h1>Statement layouts</h1>
      <p><Link to="/admin">Back to admin</Link></p>
      <Start onDraft={draft} onSample={setSample} onDry={dryRun} />
      {a.busy ? <Loading show /> : null}
      <ErrorBox error={a.error} />
      {dry ? <Section title="Which layout reads it"><DryRun d={dry} /></Section> : null}
      {sample && editing ? <p class="muted">Sample: {sample.fileName}</p> : null}
      {editing ? <Editor e={editing} setE={show} sample={editing.readOnly ? null : sample} onSaved={() => setGen((g) => g + 1)} /> : null}
      <Sources gen={gen} onEdit={edit} onView={view} />
    </div>
  );
}
