import assert from 'node:assert/strict';
import { PDFParse } from 'pdf-parse';
import { figuresCsv, figuresPdf, type Figures } from '../../../src/modules/money/statement-build';
import { csvWithPayee, figuresWithPayee, payeeById, pdfWithLine } from '../../../src/modules/money/statement-payee';

const figures: Figures = {
  workspace: 'Label', payee: payeeById('11111111-2222-3333-4444-555555555555'), period: '2026-10', periodStart: '2026-10-01', periodEnd: '2026-11-01', currency: 'USD',
  openingBalance: '0', recordings: [{ recordingId: null, title: 'Song', isrc: null, quantity: '3', amount: '1.5' }], royaltiesTotal: '1.5', quantityTotal: '3',
  revenueShares: [], revenueSharesTotal: '0', recouped: [], recoupedTotal: '0', payments: [], paymentsTotal: '0', recovery: [], recoveryTotal: '0', recoveryOutstanding: '0',
  adjustments: [], adjustmentsTotal: '0', closingBalance: '1.5', sources: [],
};

describe('statement payee details joined into the frozen bodies', () => {
  it('the stored bodies name the payee by id only', async () => {
    const csv = figuresCsv(figures, 2);
    assert.match(csv, /^header,Payee,,,,$/m);
    const text = (await new PDFParse({ data: await figuresPdf(figures, 2) }).getText()).text;
    assert.doesNotMatch(text, /Payee|<>/);
  });

  it('CSV: the name goes into the Payee row, quoted and neutralised like every text cell; the rest is byte-identical', () => {
    const csv = figuresCsv(figures, 2);
    const out = csvWithPayee(csv, { name: '=Smith, "Jo"', email: 'jo@example.test' });
    assert.equal(out.split('\n').find((l) => l.startsWith('header,Payee,')), `header,Payee,"'=Smith, ""Jo""",,,`);
    assert.equal(out.replace(/^header,Payee,.*$/m, 'header,Payee,,,,'), csv);
  });

  it('PDF: the stored bytes stay a prefix; the payee line and the title come in an incremental update', async () => {
    const stored = await figuresPdf(figures, 2, { primaryColor: '#aa0000', accentColor: null, senderName: 'Sender', logo: null });
    const out = pdfWithLine(stored, 'Payee: Zoë (Ng) <z@example.test> 山', 'Statement 2026-10 - Zoë');
    assert.deepEqual(out.subarray(0, stored.length), stored);
    const p = new PDFParse({ data: out });
    const text = (await p.getText()).text;
    assert.match(text, /Payee: Zoë \(Ng\) <z@example\.test> \?/);
    assert.match(text, /Closing balance\s+1\.50 USD/);
    assert.equal((await p.getInfo()).info.Title, 'Statement 2026-10 - Zoë');
  });

  it('JSON: the figures with the name and e-mail', () => {
    assert.deepEqual(figuresWithPayee(figures, { name: 'Jo', email: null }).payee, { id: figures.payee.id, name: 'Jo', email: '' });
  });
});
