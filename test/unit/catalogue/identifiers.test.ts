import assert from 'node:assert/strict';
import { normaliseIsrc, normaliseUpc, isValidUpc, gtinCheckDigit, parseIsrc, parseUpc } from '../../../src/modules/catalogue/identifiers';

describe('catalogue identifiers', () => {
  it('normalises ISRC and UPC', () => {
    assert.equal(normaliseIsrc(' us-rc1-76-07839 '), 'USRC17607839');
    assert.equal(normaliseIsrc('US-RC1-76-0783'), null);
    assert.equal(normaliseUpc('602438123452'), '0602438123452');
    assert.equal(normaliseUpc('00602438123452'), '0602438123452');
    assert.equal(normaliseUpc('abc'), null);
    assert.equal(isValidUpc('036000291452'), true);
    assert.equal(isValidUpc('036000291453'), false);
    assert.equal(isValidUpc('4006381333931'), true);
  });

  it('computes the GTIN check digit and parses with a reason on failure', () => {
    assert.equal(gtinCheckDigit('03600029145'), 2);
    assert.deepEqual(parseUpc('036000291452'), { upc: '0036000291452' });
    assert.deepEqual(parseUpc('036000291453'), { error: 'UPC "036000291453" has a wrong check digit' });
    assert.deepEqual(parseIsrc('us-rc1-76-07839'), { isrc: 'USRC17607839' });
    assert.deepEqual(parseIsrc('nope'), { error: 'ISRC "nope" is not of the form CC-XXX-YY-NNNNN' });
  });
});
