/**
 * The payee's details of a stored statement (src/modules/money/statement-payee.ts): the stored
 * bodies drawn by the one statement renderer name the payee by id only, and the details are
 * joined in when read (CSV row, JSON, PDF incremental update in page 1's top margin).
 */
import assert from 'node:assert/strict';
import { PDFParse } from 'pdf-parse';
import { figuresCsv, figuresPdf, type Figures, type StatementState } from '../../../src/modules/money/statement-build';
import { csvWithPayee, figuresWithPayee, payeeById, payeeLine, pdfWithLine } from '../../../src/modules/money/statement-payee';
import { PAYEE_LINE_FROM_TOP } from '../../../src/modules/money/statement-pdf';
import { overlaps, pdfRuns } from '../../money/statement-pdf-helpers';

const figures: Figures = {
  workspace: 'Label', payee: payeeById('11111111-2222-3333-4444-555555555555'), period: '2026-10', periodStart: '2026-10-01', periodEnd: '2026-11-01', currency: 'USD',
  openingBalance: '0', recordings: [{ recordingId: null, title: 'Song', isrc: null, quantity: '3', amount: '1.5' }], royaltiesTotal: '1.5', quantityTotal: '3',
  revenueShares: [], revenueSharesTotal: '0', recouped: [], recoupedTotal: '0', payments: [], paymentsTotal: '0', recovery: [], recoveryTotal: '0', recoveryOutstanding: '0',
  adjustments: [], adjustmentsTotal: '0', closingBalance: '1.5', sources: [],
};
const issued: StatementState = { state: 'issued', number: 7 };
const brand = { primaryColor: '#aa0000', accentColor: null, senderName: 'Sender', logo: null };

describe('statement payee details joined into the frozen bodies', () => {
  it('the stored bodies name the payee by id only: no payee block, no name in the title', async () => {
    const csv = figuresCsv(figures, 2, issued);
    assert.match(csv, /^header,Payee,,,,$/m);
    const p = new PDFParse({ data: await figuresPdf(figures, 2, issued, brand) });
    assert.doesNotMatch((await p.getText()).text, /Payee|<>/);
    assert.equal((await p.getInfo()).info.Title, 'Royalty statement 2026-10 (2026-10-01 to 2026-10-31)');
  });

  it('CSV: the name goes into the Payee row, quoted and neutralised like every text cell; the rest is byte-identical', () => {
    const csv = figuresCsv(figures, 2, issued);
    const out = csvWithPayee(csv, { name: '=Smith, "Jo"', email: 'jo@example.test' });
    assert.equal(out.split('\n').find((l) => l.startsWith('header,Payee,')), `header,Payee,"'=Smith, ""Jo""",,,`);
    assert.equal(out.replace(/^header,Payee,.*$/m, 'header,Payee,,,,'), csv);
  });

  it('PDF: the stored bytes stay a prefix; the payee line (page 1 top margin, clear of the rest) and the title come in an incremental update', async () => {
    const many = { ...figures, recordings: Array.from({ length: 80 }, (_, i) => ({ recordingId: null, title: `Song ${i}`, isrc: null, quantity: '1', amount: '0.01' })) };
    const stored = await figuresPdf(many, 2, issued, brand);
    const out = pdfWithLine(stored, payeeLine({ name: 'Zoë (Ng)', email: 'z@example.test' }) + ' 山', 'Royalty statement 2026-10 - Zoë');
    assert.deepEqual(out.subarray(0, stored.length), stored);
    const p = new PDFParse({ data: out });
    assert.match((await p.getText()).text, /Payee: Zoë \(Ng\) <z@example\.test> \?/);
    assert.equal((await p.getInfo()).info.Title, 'Royalty statement 2026-10 - Zoë');
    const { pages, runs } = await pdfRuns(out);
    assert.ok(pages >= 2, `${pages} pages`);
    const line = runs.filter((r) => r.str.includes('Payee:'));
    assert.deepEqual(line.map((r) => [r.page, r.x, Math.round(841.89 - r.y)]), [[1, 50, PAYEE_LINE_FROM_TOP]]);
    assert.deepEqual(overlaps(runs).map(([x, y]) => `${x.str} / ${y.str}`), []);
    // nothing else of the statement in page 1's top margin
    assert.deepEqual(runs.filter((r) => r.page === 1 && 841.89 - r.y < 50 && !r.str.includes('Payee:')).map((r) => r.str), []);
  });

  it('the payee line names the e-mail once: not again when it stands for the name', () => {
    assert.equal(payeeLine({ name: 'Jo Ng', email: 'jo@example.test' }), 'Payee: Jo Ng <jo@example.test>');
    assert.equal(payeeLine({ name: 'jo@example.test', email: 'jo@example.test' }), 'Payee: jo@example.test');
    assert.equal(payeeLine({ name: 'Erased payee 0123456789', email: null }), 'Payee: Erased payee 0123456789');
  });

  it('JSON: the figures with the name, the e-mail and the address lines the payee block prints', () => {
    assert.deepEqual(figuresWithPayee(figures, { name: 'Jo', email: null }).payee, { id: figures.payee.id, name: 'Jo', email: '', address: [] });
    assert.deepEqual(figuresWithPayee(figures, { name: 'Jo Ng', email: 'jo@example.test' }).payee, { id: figures.payee.id, name: 'Jo Ng', email: 'jo@example.test', address: ['jo@example.test'] });
    // figures made before the address lines: none added
    const { address: _a, ...old } = figures.payee;
    assert.deepEqual(figuresWithPayee({ ...figures, payee: old }, { name: 'Jo', email: 'jo@example.test' }).payee, { id: figures.payee.id, name: 'Jo', email: 'jo@example.test' });
  });
});
