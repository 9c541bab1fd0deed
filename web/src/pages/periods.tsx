/**
 * Accounting periods and statement runs: close and reopen a period (with what closing means),
 * preview a run (draft statements with each payee's PDF and CSV), issue it after confirmation,
 * send an issued run's statements to the payees by e-mail (its own step), every statement of a
 * run as one ZIP, and the period's issued statements with their numbers.
 */
import { useEffect, useState } from 'preact/hooks';
import { download, qs, client, ok, type Answer } from '../api';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Loading, Notice, Pager, Section, Table, useAction, useLoad } from '../ui';
import { localDate, localMoney, monthName } from '../words';

interface PeriodState { period: string; periodStart: string; periodEnd: string; closed: boolean; closedAt: string | null; issuedStatements: number }
interface RunStatement { id: string; user: string; number: number | null; openingBalance: string; royaltiesTotal: string; adjustmentsTotal: string; closingBalance: string }
interface DiffRow { user: string; status: string; change: { closingBalance: string } }
interface Run { id: string; period: string; status: string; statements: RunStatement[]; diff: DiffRow[] | null; issuedAt: string | null; sentAt: string | null; sent?: number }
type Issued = Answer<'/statements'>['data'][number];
type Member = Answer<'/user/'>['data'][number];

const ISSUED_PAGE = 20;
const nameOf = (m: Member | undefined, id: string) => (m ? [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email : id);

/** The period labels of the workspace's cadence that hold the months first…last, newest first. */
export function periodLabels(cadence: string, months: string[]): string[] {
  const out = new Set<string>();
  for (const ym of months) {
    const [y, m] = ym.split('-').map(Number);
    out.add(cadence === 'quarterly' ? `${y}-Q${Math.ceil(m / 3)}` : cadence === 'half-yearly' ? `${y}-H${m <= 6 ? 1 : 2}` : ym);
  }
  return [...out].sort().reverse();
}

/** "March 2026", "2026, 1st quarter"… for a period label. */
export function periodWords(label: string): string {
  const q = /^(\d{4})-Q([1-4])$/.exec(label);
  if (q) return `${q[1]}, quarter ${q[2]}`;
  const h = /^(\d{4})-H([12])$/.exec(label);
  if (h) return `${h[1]}, ${h[2] === '1' ? 'first' : 'second'} half`;
  return monthName(label);
}

/** The last day of a period whose end is given exclusive (the next period's first day). */
function lastDay(endExclusive: string): string {
  const d = new Date(`${endExclusive.slice(0, 10)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function PeriodStatus({ state, busy, onClose, onReopen }: { state: PeriodState; busy: boolean; onClose: () => void; onReopen: () => void }) {
  return (
    <div class="period-state" data-testid="period-state">
      <p>
        <strong>{periodWords(state.period)}</strong> ({localDate(state.periodStart)} – {localDate(lastDay(state.periodEnd))}) is{' '}
        <span class={`badge s-${state.closed ? 'closed' : 'open'}`}>{state.closed ? 'closed' : 'open'}</span>
        {state.closed && state.closedAt ? <> since {localDate(state.closedAt)}</> : null}
        {' · '}{state.issuedStatements} issued {state.issuedStatements === 1 ? 'statement' : 'statements'}
      </p>
      <p class="muted">
        {state.closed
          ? state.issuedStatements
            ? 'It stays closed: its statements are issued and their figures are final. Later changes to its earnings reach the next statement as adjustments.'
            : 'A closed period takes no new statement run and no issue. Reopen it to run or issue its statements.'
          : 'Closing it stops new statement runs and issuing for it; later changes to its earnings then reach the next statement as adjustments. It can be reopened while none of its statements is issued.'}
      </p>
      <div class="row tight">
        {state.closed
          ? <button type="button" disabled={busy} onClick={onReopen}>Reopen {state.period}</button>
          : <button type="button" disabled={busy} onClick={onClose}>Close {state.period}</button>}
      </div>
    </div>
  );
}

/** What can be done with a whole run: send its statements by e-mail (issued runs), download all of them as one ZIP. */
function RunActions({ run, label, busy, onSend, onDownload }: { run: Run; label: string; busy: boolean; onSend: (r: Run) => void; onDownload: (r: Run) => void }) {
  return (
    <div class="row tight run-actions" data-testid={`run-${run.id}`}>
      {run.status === 'issued' ? (
        <>
          <button type="button" class={run.sentAt ? undefined : 'primary'} disabled={busy} onClick={() => onSend(run)} aria-label={`${run.sentAt ? 'Send by e-mail again' : 'Send by e-mail'}: ${label}`}>{run.sentAt ? 'Send by e-mail again' : 'Send by e-mail'}</button>
          <span class="muted" data-testid="run-sent">{run.sentAt ? `Sent ${localDate(run.sentAt)}` : 'Not sent yet'}</span>
        </>
      ) : null}
      <button type="button" disabled={busy} onClick={() => onDownload(run)} aria-label={`Download all (ZIP): ${label}`}>Download all (ZIP)</button>
    </div>
  );
}

/**
 * The periods and statement runs of the money page; `members` (names), `currency` (the
 * workspace's) and `cadence` come from the page, undefined while it is still asking.
 */
export function PeriodsAndRuns({ members, months, currency, cadence, onChange }: { members: Member[] | undefined; months: string[]; currency: string | undefined; cadence: string | undefined; onChange: () => void }) {
  // the labels wait for the cadence: a quarterly workspace's first label is not a month's
  const labels = cadence ? periodLabels(cadence, months) : [];
  const [period, setPeriod] = useState('');
  useEffect(() => { if (!period && labels.length) setPeriod(labels[0]); }, [labels.join()]);
  const state = useLoad(() => (period ? ok(client.GET('/accounting/periods/{period}', { params: { path: { period } } })).then((r) => r.data) : Promise.resolve(undefined)), [period]);
  // the period's issued statements, a page of the server's at a time
  const [issuedPage, setIssuedPage] = useState(1);
  const issuedList = useLoad(() => (period ? ok(client.GET('/statements', { params: { query: { period, page: issuedPage, size: ISSUED_PAGE } } })) : Promise.resolve({ data: [] as Issued[], pagination: { page: 1, size: ISSUED_PAGE, total: 0 } })), [period, issuedPage]);
  const issued = { ...issuedList, data: issuedList.data?.data };
  useEffect(() => setIssuedPage(1), [period]);
  const [run, setRun] = useState<Run | null>(null);
  // the runs the period's issued statements come from (one, unless payees were issued apart)
  const runIds = [...new Set((issued.data ?? []).map((s) => s.runId))];
  const issuedRuns = useLoad(() => Promise.all(runIds.map((id) => ok(client.GET('/statements/runs/{id}', { params: { path: { id } } })).then((r) => r.data))), [runIds.join()]);
  const a = useAction();
  const c = useConfirm();
  const byId = new Map((members ?? []).map((m) => [m.id, m]));
  useEffect(() => setRun(null), [period]);

  const refresh = () => { state.reload(); issued.reload(); issuedRuns.reload(); onChange(); };
  const send = (r: Run) => c.ask({
    title: `Send the statements of ${periodWords(r.period)}?`,
    body: <p>Each of the {r.statements.length} payees is told by e-mail that their statement is ready, with a link to read and download it in Rondo (unless they turned statement e-mails off; they see it in Rondo either way).{r.sentAt ? ` They were told already on ${localDate(r.sentAt)}: they will be told again.` : ''}</p>,
    action: r.sentAt ? 'Send again' : 'Send by e-mail',
    run: async () => {
      const done = (await ok(client.POST('/statements/runs/{id}/send', { params: { path: { id: r.id } } }))).data;
      if (run?.id === done.id) setRun(done);
      refresh();
      await a.run(async () => `${done.sent} ${done.sent === 1 ? 'payee was' : 'payees were'} sent their statement of ${periodWords(done.period)}.`);
    },
  });
  const downloadAll = (r: Run) => a.run(() => download(`/statements/runs/${r.id}/zip`, `statements-${r.period}.zip`));
  const close = () => a.run(async () => { await ok(client.POST('/accounting/periods/{period}/close', { params: { path: { period } } })); refresh(); return `${periodWords(period)} is closed.`; });
  const reopen = () => a.run(async () => { await ok(client.POST('/accounting/periods/{period}/reopen', { params: { path: { period } } })); refresh(); return `${periodWords(period)} is open again.`; });
  const preview = () => a.run(async () => {
    const r = (await ok(client.POST('/statements/runs', { body: { period } }))).data;
    setRun(r);
    return r.statements.length ? `Draft statements of ${periodWords(period)}: check them, then issue them.` : `Every payee's statement of ${periodWords(period)} is issued already.`;
  });
  const issue = () => c.ask({
    title: `Issue the statements of ${periodWords(period)}?`,
    body: <p>Issuing gives each of the {run!.statements.length} statements its number and freezes it: its figures, PDF and CSV never change afterwards. Nobody is told yet: send them to the payees by e-mail afterwards, when you are ready.</p>,
    action: 'Issue statements',
    run: async () => {
      const r = (await ok(client.POST('/statements/runs/{id}/issue', { params: { path: { id: run!.id } } }))).data;
      setRun(r);
      refresh();
      await a.run(async () => `${r.statements.length} ${r.statements.length === 1 ? 'statement' : 'statements'} of ${periodWords(r.period)} issued. Send them to the payees by e-mail when you are ready.`);
    },
  });
  const file = (s: { id: string; number: number | null; user: string }, format: 'pdf' | 'csv') =>
    a.run(() => download(`/statements/${s.id}/${format}`, `statement-${period}-${s.number ?? 'draft'}.${format}`));
  const fileButtons = (s: { id: string; number: number | null; user: string }) => (
    <div class="row tight">
      <button type="button" onClick={() => file(s, 'pdf')} aria-label={`PDF of the statement of ${nameOf(byId.get(s.user), s.user)}`}>PDF</button>
      <button type="button" onClick={() => file(s, 'csv')} aria-label={`CSV of the statement of ${nameOf(byId.get(s.user), s.user)}`}>CSV</button>
    </div>
  );
  const diff = new Map((run?.diff ?? []).map((d) => [d.user, d]));

  return (
    <Section title="Periods and statements">
      <div class="row wrap">
        <Field label="Accounting period">
          <select value={period} onChange={(e) => setPeriod(e.currentTarget.value)}>
            {labels.length ? null : <option value="">No period with earnings yet</option>}
            {labels.map((l) => <option key={l} value={l}>{periodWords(l)}</option>)}
          </select>
        </Field>
      </div>
      <Loading show={state.loading && !state.data} />
      <ErrorBox error={state.error ?? issued.error ?? a.error} /><Notice text={a.done} />
      {state.data ? <PeriodStatus state={state.data} busy={a.busy} onClose={close} onReopen={reopen} /> : null}
      {period ? (
        <div class="row tight period-actions">
          <button type="button" class="primary" disabled={a.busy} onClick={preview}>Preview statements</button>
          {run && run.status === 'draft' && run.statements.length ? <button type="button" disabled={a.busy} onClick={issue}>Issue statements</button> : null}
        </div>
      ) : null}
      {run && run.statements.length ? <RunActions run={run} label={`${run.status === 'issued' ? 'the statements issued' : 'the draft statements'} of ${periodWords(run.period)}`} busy={a.busy} onSend={send} onDownload={downloadAll} /> : null}
      {run ? (
        <Table caption={run.status === 'issued' ? `Statements issued for ${periodWords(run.period)}` : `Draft statements of ${periodWords(run.period)}`} rows={run.statements} rowKey={(s) => s.id} empty="No statement to issue." columns={[
          { label: 'No.', cell: (s) => s.number ?? 'draft', num: true },
          { label: 'Payee', cell: (s) => nameOf(byId.get(s.user), s.user) },
          { label: 'Opening', cell: (s) => localMoney(s.openingBalance, currency), num: true },
          { label: 'Royalties', cell: (s) => localMoney(s.royaltiesTotal, currency), num: true },
          { label: 'Adjustments', cell: (s) => localMoney(s.adjustmentsTotal, currency), num: true },
          { label: 'Closing', cell: (s) => localMoney(s.closingBalance, currency), num: true },
          { label: 'Since the last preview', cell: (s) => { const d = diff.get(s.user); return d ? (d.status === 'unchanged' ? 'unchanged' : `${d.status} (${localMoney(d.change.closingBalance, currency)})`) : '—'; } },
          { label: 'Files', cell: fileButtons },
        ]} />
      ) : null}
      {run?.status === 'issued' ? null : (issuedRuns.data ?? []).map((r, i, all) => (
        <RunActions key={r.id} run={r} label={`the issued statements of ${periodWords(r.period)}${all.length > 1 ? ` (run ${i + 1} of ${all.length}, ${r.statements.length} payees)` : ''}`} busy={a.busy} onSend={send} onDownload={downloadAll} />
      ))}
      <Table caption={`Issued statements of ${period ? periodWords(period) : 'the period'}`} rows={issued.data} rowKey={(s) => s.id} empty="None issued yet." columns={[
        { label: 'No.', cell: (s) => s.number, num: true },
        { label: 'Payee', cell: (s) => nameOf(byId.get(s.user), s.user) },
        { label: 'Issued', cell: (s) => localDate(s.issuedAt) },
        { label: 'Closing balance', cell: (s) => localMoney(s.closingBalance, s.currency), num: true },
        { label: 'Files', cell: fileButtons },
      ]} />
      {(issuedList.data?.pagination.total ?? 0) > ISSUED_PAGE
        ? <Pager page={issuedPage} size={ISSUED_PAGE} total={issuedList.data!.pagination.total} onPage={setIssuedPage} label="Issued statements pages" noun={['statement', 'statements']} />
        : null}
      {c.dialog}
    </Section>
  );
}
