/** What the web app says to people: errors without routes, status codes in words, money and months in the locale. */
import assert from 'node:assert/strict';
import { duplicateMessage } from '../../../src/modules/files/service';
import { everyMonth, inWords, localMoney, monthName, statusWords } from '../../../web/src/words';

describe('web app words', () => {
  it('takes the API routes out of a server message', () => {
    assert.equal(
      inWords('Duplicate of file 1 (same SHA-256): the original is read again in place (/file/reprocess/1)'),
      'Duplicate of file 1 (same SHA-256): the original is read again in place (/file/reprocess/1)',
      'a bare path without a method is left (no route call named)',
    );
    assert.equal(inWords('No exchange rate to EUR for USD 2023-07: set the monthly rate with PUT /currency/rates, then reprocess the file (POST /royalty/files/9/allocate)'),
      'No exchange rate to EUR for USD 2023-07: set the monthly rate, then reprocess the file');
    assert.doesNotMatch(inWords(duplicateMessage('abc')), /\b(GET|POST|PUT|PATCH|DELETE) \//);
  });

  it('tells a status without a message in words', () => {
    for (const s of [401, 403, 404, 405, 409, 413, 429, 500, 503]) assert.doesNotMatch(statusWords(s), /\d{3}|HTTP|Method|Failed/);
  });

  it('formats money exactly from its decimal string, rounding half-up to the minor unit', () => {
    assert.equal(localMoney('1234567890123.455', 'USD').replace(/\s/g, ' '), 'USD 1,234,567,890,123.46');
    assert.equal(localMoney('-0.004', 'EUR').replace(/\s/g, ' '), 'EUR 0.00');
    assert.equal(localMoney('-12.5', 'EUR').replace(/\s/g, ' '), '-EUR 12.50');
    assert.equal(localMoney('1999.5', 'JPY').replace(/\s/g, ' '), 'JPY 2,000');
    assert.equal(localMoney('0.1', null), '0.10');
    assert.equal(localMoney(null, 'USD'), '—');
  });

  it('names months and fills the empty ones of a month breakdown', () => {
    assert.equal(monthName('2026-02'), 'February 2026');
    const rows = everyMonth([{ month: '2025-11', revenue: '1', quantity: '1', lines: 1 }, { month: '2026-02', revenue: '2', quantity: '2', lines: 2 }]);
    assert.deepEqual(rows.map((r) => [r.month, r.revenue]), [['2025-11', '1'], ['2025-12', '0'], ['2026-01', '0'], ['2026-02', '2']]);
    assert.deepEqual(everyMonth<{ month: string; revenue: string; quantity: string; lines: number }>([], '2026-01', '2026-02').map((r) => r.month), ['2026-01', '2026-02']);
  });
});
