/**
 * The one statement renderer (src/modules/money/statement-pdf.ts), read back through the PDF's
 * text positions: amounts as printed, and a publisher statement's sections where they belong.
 */
import assert from 'node:assert/strict';
import { printAmount } from '../../../src/modules/money/statement-pdf';
import { statementPdf } from '../../../src/modules/publishing-income/render';
import type { StatementView } from '../../../src/modules/publishing-income/statements';
import { amountsBeside, overlaps, pdfRuns, rowAmount } from '../../money/statement-pdf-helpers';

describe('statement renderer', () => {
  it('prints amounts with their decimals, thousands separated, sign first', () => {
    assert.equal(printAmount('-1234.50'), '-1,234.50');
    assert.equal(printAmount('0.00'), '0.00');
    assert.equal(printAmount('94205.6'), '94,205.6');
    assert.equal(printAmount('1234567'), '1,234,567');
    assert.equal(printAmount('-0.00'), '0.00');
  });

  it("a publisher statement: the Adjustments heading at the left margin, each amount on its label's row, the state until approved", async () => {
    const view: StatementView = {
      id: '0b5c2f9e-1111-2222-3333-444455556666', status: 'pending', payee: { kind: 'writer', id: 'w', name: 'Mara Quill' },
      periodStart: '2024-01-01', periodEnd: '2024-12-31', currency: 'EUR', incomeExact: '205.766', incomeTotal: '205.77', adjustmentsTotal: '-10.00', total: '195.77',
      createdAt: '2025-01-05T00:00:00.000Z', updatedAt: '2025-01-05T00:00:00.000Z',
      lines: [
        { position: 1, work: { id: null, title: 'Low Orbit', iswc: 'T-123.456.789-0' }, rightType: 'mechanical', source: 'PRS', lines: 3, exact: '102.883', amount: '102.88' },
        { position: 2, work: { id: null, title: 'Glass Tide', iswc: null }, rightType: 'performance', source: 'PRS', lines: 1, exact: '102.883', amount: '102.89' },
      ],
      adjustments: [{ id: 'a', amount: '-10.00', memo: 'Advance recouped', createdAt: '2025-01-05T00:00:00.000Z' }],
    };
    const { runs } = await pdfRuns(await statementPdf(view, 'Moonlight Label', null));
    assert.deepEqual(overlaps(runs), []);
    const heading = runs.filter((r) => r.str.trim() === 'Adjustments');
    assert.equal(heading.length, 1);
    assert.ok(Math.abs(heading[0]!.x - 50) < 1, `the heading starts at the left margin, not at x=${heading[0]!.x}`);
    assert.equal(amountsBeside(runs, heading[0]!).length, 0, 'a heading carries no amount');
    assert.equal(rowAmount(runs, 'Advance recouped').toFixed(2), '-10.00');
    assert.equal(rowAmount(runs, 'Adjustments total').toFixed(2), '-10.00');
    assert.equal(rowAmount(runs, 'Income total').toFixed(2), '205.77');
    assert.equal(rowAmount(runs, 'Total').toFixed(2), '195.77');
    assert.ok(runs.some((r) => /^PENDING: not approved yet/.test(r.str)));
    assert.ok(runs.some((r) => r.str.trim() === 'Page 1 of 1'));
    const approved = await pdfRuns(await statementPdf({ ...view, status: 'approved' }, 'Moonlight Label', null));
    assert.ok(!approved.runs.some((r) => /not approved yet/.test(r.str)));
  });
});
