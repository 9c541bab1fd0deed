/**
 * Drafts that do not mislead, on layouts that are not built in: money columns named gross or
 * net of fees with the reason, never a whole-number column as the amount, the currency with
 * where it comes from, row filters for totals, shipping and payouts, publishing income with
 * work fields; and validation that says when a pattern reads the sample on a guess.
 */
import assert from 'node:assert/strict';
import { checkPatternOnSample, draftPattern } from '../../../parsers/index';
import { fixture, readWith } from './helpers';

const draft = (f: string, workspaceCurrency: string | null = null) => draftPattern(fixture(f), f, { workspaceCurrency });
const role = (d: ReturnType<typeof draft>, name: string) => d.columns.find((c) => c.name === name)?.role ?? null;

describe('drafts that do not mislead', () => {
  it('the amount is the column after the fee, and each money column says gross, net or fee, and why', async () => {
    const f = 'merchline_royalties_2024-03.csv';
    const d = draft(f, 'EUR');
    assert.equal(role(d, 'Payout Amount'), 'amount');
    assert.equal(role(d, 'Revenue'), null);
    assert.deepEqual(d.pattern.columns.net, { from: 'Payout Amount' });
    assert.deepEqual(d.money.map((m) => [m.name, m.basis]), [['Revenue', 'gross'], ['Fee', 'fee'], ['Payout Amount', 'net']]);
    assert.match(d.money[0]!.why, /"Revenue" − "Fee" = "Payout Amount" on every sample row: it is before the fee/);
    // no currency in the file: the workspace's, said to be a guess
    assert.deepEqual(d.currency, { code: 'EUR', source: 'workspace', why: "the file does not say; EUR is the workspace's base currency — a guess to confirm" });
    assert.deepEqual(d.pattern.columns.currency, { const: 'EUR' });
    assert.ok(d.warnings.some((w) => /currency: .*a guess/.test(w)));
    const { summary } = await readWith(f, d.pattern);
    assert.deepEqual(summary.totals, { EUR: '9.3' });
  });

  it('a percentage fee is told from the share: the column a fixed share of another is the net', () => {
    const csv = 'Track,ISRC,Gross Amount,Amount\nA,QZES81912345,10.00,8.50\nB,QZES81912346,4.00,3.40\nC,QZES81912347,2.00,1.70\n';
    const d = draftPattern(Buffer.from(csv), 'x_USD.csv');
    assert.equal(role(d, 'Amount'), 'amount');
    assert.deepEqual(d.money.map((m) => [m.name, m.basis]), [['Gross Amount', 'gross'], ['Amount', 'net']]);
    assert.match(d.money[1]!.why, /is 85% of "Gross Amount" on every sample row: it is after the fee/);
    assert.deepEqual(d.currency, { code: 'USD', source: 'fileName', why: 'the file name "x_USD.csv" names USD' });
  });

  it('a whole-number column is never the amount; the currency comes from the header, a total row is read as the file\'s own total', async () => {
    const f = 'hollow_pines_statement_Q1.csv';
    const d = draft(f, 'USD');
    assert.equal(role(d, 'Total'), 'quantity');
    assert.equal(role(d, 'Amount £'), 'amount');
    assert.deepEqual(d.currency, { code: 'GBP', source: 'header', why: 'the amount column\'s name "Amount £" names GBP' });
    assert.deepEqual(d.pattern.columns.currency, { const: 'GBP' });
    assert.deepEqual(d.rowFilters.map((r) => [r.kind, r.column, r.action, r.rows]), [['total', 'Month', 'total', 1]]);
    assert.deepEqual(d.warnings, []);
    const { summary, lines } = await readWith(f, d.pattern);
    assert.equal(lines.length, 3);
    assert.deepEqual(summary.totals, { GBP: '8.79' });
    assert.equal(summary.reconciles, true);
  });

  it('an order number is not a barcode; shipping and payout rows are proposed as filters', async () => {
    const f = 'shopfront_orders_2024-05.csv';
    const d = draft(f, 'USD');
    assert.equal(role(d, 'Order ID'), null);
    assert.equal(d.pattern.columns.upc, undefined);
    assert.deepEqual(d.rowFilters.map((r) => [r.kind, r.column, r.action]), [['shipping', 'Item', 'skip'], ['payout', 'Item', 'skip']]);
    assert.equal(d.pattern.rows!.length, 2);
    const { summary, lines } = await readWith(f, d.pattern);
    assert.deepEqual(lines.map((l) => l.net), ['18.50', '7.00', '2.00']);
    assert.deepEqual(summary.skipped, { rows: 2, totals: { USD: '-20.5' } });
  });

  it('cost and recharge rows are proposed as deductions and read as such, never as negative sales', async () => {
    const f = 'northgate_label_statement_2024-06.csv';
    const d = draft(f);
    assert.deepEqual(d.rowFilters.map((r) => [r.kind, r.column, r.action, r.rows]), [['deduction', 'Type', 'deduction', 2]]);
    const { summary, lines } = await readWith(f, d.pattern);
    assert.deepEqual(lines.map((l) => l.trackTitle), ['Low Orbit', 'Paper Suns', 'Cost of Living']);
    assert.deepEqual(summary.totals, { EUR: '8.1' });
    assert.deepEqual(summary.deductions, { rows: 2, totals: { EUR: '75' } });
  });

  it('fee rows are proposed as deductions too, not negative sales', () => {
    const csv = 'Date,Type,Title,ISRC,Amount,Currency\n2024-06-01,Stream,Low Orbit,QZES81912345,4.00,EUR\n2024-06-30,Distribution fee,Fee June,,-0.40,EUR\n2024-06-30,Download,Paper Suns,QZES81912346,2.10,EUR\n';
    const d = draftPattern(Buffer.from(csv), 'label_2024-06.csv');
    assert.deepEqual(d.rowFilters.map((r) => [r.kind, r.column, r.action, r.rows]), [['deduction', 'Type', 'deduction', 1]]);
  });

  it('the currency from a column of the lines, and the draft says so', () => {
    const d = draft('northgate_label_statement_2024-06.csv', 'USD');
    assert.deepEqual(d.currency, { code: 'EUR', source: 'column', why: 'column "Currency" holds the currency of each line (EUR)' });
    assert.deepEqual(d.pattern.columns.currency, { from: 'Currency' });
    assert.equal(d.warnings.some((w) => /currency/.test(w)), false, 'a currency the file states is no guess');
  });

  it('cost and recharge rows set to `expense` are handed over as expenses with their date and amount, never as sales', async () => {
    const f = 'northgate_label_statement_2024-06.csv';
    const d = draft(f);
    const rows = d.pattern.rows!.map((r) => (r.action === 'deduction' ? { ...r, action: 'expense' as const } : r));
    const { summary, lines, expenses, errors } = await readWith(f, { ...d.pattern, rows });
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => l.trackTitle), ['Low Orbit', 'Paper Suns', 'Cost of Living']);
    assert.deepEqual(summary.totals, { EUR: '8.1' });
    assert.deepEqual(expenses.map((l) => [l.lineNo, l.trackTitle, l.saleMonth, l.net, l.currency]), [
      [4, 'Mastering', '2024-06-01', '45.00', 'EUR'], [5, 'Facebook ads', '2024-06-01', '30.00', 'EUR'],
    ]);
    assert.deepEqual(summary.expenses, { rows: 2, totals: { EUR: '75' } });
    assert.equal(summary.deductions, undefined);
    // the same as a row kind of its own
    const kinds = { ...d.pattern, rows: undefined, rowKinds: { column: 'Type', kinds: [{ values: ['Recharge', 'Marketing cost'], use: 'expense' as const }, { values: ['Stream', 'Download'], use: 'data' as const }] } };
    const k = await readWith(f, kinds as any);
    assert.deepEqual(k.expenses.map((l) => l.net), ['45.00', '30.00']);
    assert.deepEqual(k.summary.totals, { EUR: '8.1' });
  });

  it('a society layout is drafted as publishing income with its work fields', async () => {
    const f = 'harbour_society_distribution_2024H1.csv';
    const d = draft(f);
    assert.equal(d.pattern.income, 'publishing');
    assert.equal(d.income.income, 'publishing');
    assert.deepEqual(d.pattern.extra, {
      iswc: { from: 'ISWC', optional: true }, workTitle: { from: 'Work Title', optional: true },
      writers: { from: 'Composers', optional: true }, rightType: { from: 'Right Type', optional: true },
    });
    const { lines } = await readWith(f, d.pattern);
    assert.deepEqual(lines[2]!.extra, { iswc: 'T-010.203.040-5', workTitle: 'Low Orbit', writers: 'B. Writer', rightType: 'Mechanical' });
  });

  it('a mechanical royalty layout (song codes, writers, no ISWC) is drafted as publishing income with its work fields; the units are not the amount', () => {
    const csv = [
      'Period,Song Title,Song Code,Writers,Service,Units,Rate,Mechanical Royalty,Currency',
      '2024-03,Low Orbit,S1002345,B. Writer,Spotify,1200,0.0009,1.08,USD',
      '2024-03,Paper Suns,S1002346,Nova Lune|A. Writer,Apple Music,400,0.0011,0.44,USD',
      '2024-03,Glass Tide,S1002347,Nova Lune,Amazon Music,250,0.0010,0.25,USD',
      '',
    ].join('\n');
    const d = draftPattern(Buffer.from(csv), 'mechanicals_2024-03.csv');
    assert.equal(d.pattern.income, 'publishing');
    assert.match(d.income.why, /"Writers".*society or mechanical income/);
    assert.deepEqual(d.pattern.extra, {
      workTitle: { from: 'Song Title', optional: true }, writers: { from: 'Writers', optional: true }, workCode: { from: 'Song Code', optional: true },
    });
    assert.deepEqual(d.pattern.columns.net, { from: 'Mechanical Royalty' });
    assert.equal(role(d, 'Units'), 'quantity');
  });
});

describe('validation that does not call a guess valid', () => {
  const f = 'hollow_pines_statement_Q1.csv';
  it('a quantity read as the amount in a currency the file does not name: valid only with both warnings', async () => {
    const pattern = {
      key: 'hollow-pines', name: 'Hollow Pines', aggregator: 'Hollow Pines', layout: 'table',
      detect: { headers: ['Month', 'Total'] }, format: { delimiter: ',', encoding: 'auto' },
      columns: { saleMonth: { from: 'Month' }, isrc: { from: 'ISRC' }, net: { from: 'Total' }, currency: { const: 'USD' } },
      rows: [{ column: 'Month', equals: ['TOTAL'], action: 'skip' }],
    };
    const r = await checkPatternOnSample(pattern, fixture(f), f);
    assert.equal(r.valid, true);
    assert.deepEqual(r.summary!.totals, { USD: '2198' });
    assert.deepEqual(r.warnings, [
      'the currency USD is a guess: no column, header or file name of the sample names it; confirm the statement is in USD',
      'every amount read is a whole number ({"USD":"2198"}): check the amount column holds money, not a count of sales',
    ]);
  });
  it('the drafted pattern: totals compared with the file\'s own total row, no warning', async () => {
    const d = draft(f);
    const r = await checkPatternOnSample(d.pattern, fixture(f), f);
    assert.deepEqual([r.valid, r.warnings, r.summary!.reconciles, r.summary!.control], [true, [], true, { totals: { GBP: '8.79' } }]);
  });
  it('a total row that disagrees with the lines is an error', async () => {
    const bad = fixture(f).toString('utf8').replace('TOTAL,,,,2198,8.79', 'TOTAL,,,,2198,9.79');
    const d = draft(f);
    const r = await checkPatternOnSample(d.pattern, Buffer.from(bad), f);
    assert.equal(r.valid, false);
    assert.match(r.errors.join(' '), /control totals .*9\.79.* do not match what was read/);
  });
});
