/**
 * CWR 2.1 / 2.2 files (docs/formats.md, "CWR"): every field we write checked at the fixed
 * position the CISAC layouts give it (positions typed here from the published record
 * layouts, not read from the code's table), record and transaction counts, and a
 * 1,000-work catalogue written and read back equal.
 */
import assert from 'node:assert/strict';
import { writeCwr } from '../../../src/modules/publishing/cwr/writer';
import { readCwr } from '../../../src/modules/publishing/cwr/reader';
import { cwrText } from '../../../src/modules/publishing/cwr/codec';
import type { CwrFile, CwrWork } from '../../../src/modules/publishing/cwr/model';
import { ipiWithCheck } from '../../../src/modules/publishing/identifiers';

const at = (line: string, start: number, end: number) => line.slice(start - 1, end);
const AT = new Date('2026-11-24T13:05:09Z');

function sample(): CwrWork {
  return {
    transactionType: 'NWR', title: 'Yesterday', code: 'RW000000000042', iswc: 'T0345246801', language: 'EN', duration: 125,
    alternateTitles: [{ title: 'Scrambled Eggs', type: 'AT', language: 'EN' }],
    publishers: [
      { code: 'P00000001', name: 'Northern Songs', ipi: '00014107338', society: 'PRS', controlled: true, type: 'E', prShare: '33.33', mrShare: '66.67', srShare: '66.67' },
      { code: 'P00000002', name: 'Other Pub', ipi: null, society: 'ASCAP', controlled: false, type: 'E', prShare: '16.67', mrShare: '33.33', srShare: '33.33' },
    ],
    writers: [
      { code: 'W00000001', lastName: 'McCartney', firstName: 'Paul', ipi: '00014107338', society: 'PRS', controlled: true, designation: 'CA', prShare: '25.00', mrShare: '0.00', srShare: '0.00', publisherCode: 'P00000001' },
      { code: 'W00000002', lastName: 'Lennon', firstName: 'John', ipi: null, society: 'BMI', controlled: false, designation: 'C', prShare: '25.00', mrShare: '0.00', srShare: '0.00', publisherCode: null },
    ],
    performers: ['The Beatles'],
    recordings: [{ isrc: 'GBAYE6500530', title: 'Yesterday', displayArtist: 'The Beatles', releaseDate: '19650806', duration: null }],
  };
}
function file(version: '2.1' | '2.2', works: CwrWork[] = [sample()]): CwrFile {
  return { version, sender: { type: 'PB', ipi: '00014107338', name: 'Northern Songs' }, createdAt: AT, software: { name: 'RONDO', version: '2.6.0' }, works };
}
const lines = (text: string) => text.split('\r\n').filter(Boolean);
const first = (ls: string[], type: string) => ls.find((l) => l.startsWith(type))!;

describe('CWR writer: fields at the published positions', () => {
  for (const version of ['2.1', '2.2'] as const) {
    describe(`CWR ${version}`, () => {
      const ls = lines(writeCwr(file(version)).text);

      it('every line ends with CR LF and records come in the transaction order', () => {
        assert.ok(writeCwr(file(version)).text.endsWith('\r\n'));
        assert.deepEqual(ls.map((l) => l.slice(0, 3)), ['HDR', 'GRH', 'NWR', 'SPU', 'SPT', 'OPU', 'SWR', 'SWT', 'PWR', 'OWR', 'ALT', 'PER', 'REC', 'GRT', 'TRL']);
      });

      it('HDR', () => {
        const l = first(ls, 'HDR');
        assert.equal(at(l, 1, 3), 'HDR');
        assert.equal(at(l, 4, 5), 'PB');
        assert.equal(at(l, 6, 14), '014107338');
        assert.equal(at(l, 15, 59), 'NORTHERN SONGS'.padEnd(45));
        assert.equal(at(l, 60, 64), '01.10');
        assert.equal(at(l, 65, 72), '20261124');
        assert.equal(at(l, 73, 78), '130509');
        assert.equal(at(l, 79, 86), '20261124');
        // 2.2 adds the version, revision and software fields after position 101 (2.1 ends there)
        assert.deepEqual(
          { length: l.length, version: at(l, 102, 104), revision: at(l, 105, 107), software: at(l, 108, 137), softwareVersion: at(l, 138, 167) },
          version === '2.1'
            ? { length: 101, version: '', revision: '', software: '', softwareVersion: '' }
            : { length: 167, version: '2.2', revision: '001', software: 'RONDO'.padEnd(30), softwareVersion: '2.6.0'.padEnd(30) },
        );
      });

      it('GRH, GRT and TRL with their counts', () => {
        const grh = first(ls, 'GRH');
        assert.equal(at(grh, 4, 6), 'NWR');
        assert.equal(at(grh, 7, 11), '00001');
        assert.equal(at(grh, 12, 16), version === '2.1' ? '02.10' : '02.20');
        assert.equal(grh.length, 28);
        const grt = first(ls, 'GRT');
        assert.equal(at(grt, 4, 8), '00001');
        assert.equal(at(grt, 9, 16), '00000001'); // transactions
        assert.equal(at(grt, 17, 24), String(ls.length - 2).padStart(8, '0')); // GRH … GRT
        const trl = first(ls, 'TRL');
        assert.equal(at(trl, 4, 8), '00001');
        assert.equal(at(trl, 9, 16), '00000001');
        assert.equal(at(trl, 17, 24), String(ls.length).padStart(8, '0')); // HDR … TRL
        assert.equal(trl.length, 24);
      });

      it('NWR', () => {
        const l = first(ls, 'NWR');
        assert.equal(at(l, 4, 11), '00000000');
        assert.equal(at(l, 12, 19), '00000000');
        assert.equal(at(l, 20, 79), 'YESTERDAY'.padEnd(60));
        assert.equal(at(l, 80, 81), 'EN');
        assert.equal(at(l, 82, 95), 'RW000000000042');
        assert.equal(at(l, 96, 106), 'T0345246801');
        assert.equal(at(l, 127, 129), 'POP');
        assert.equal(at(l, 130, 135), '000205');
        assert.equal(at(l, 136, 136), 'Y');
        assert.equal(at(l, 137, 139), 'MTX');
        assert.equal(at(l, 143, 145), 'ORI');
        assert.equal(at(l, 197, 197), 'N');
        assert.equal(at(l, 260, 260), 'N');
        assert.equal(l.length, 260);
      });

      it('SPU and SPT of a controlled publisher, OPU of another', () => {
        const l = first(ls, 'SPU');
        assert.equal(at(l, 12, 19), '00000001');
        assert.equal(at(l, 20, 21), '01');
        assert.equal(at(l, 22, 30), 'P00000001');
        assert.equal(at(l, 31, 75), 'NORTHERN SONGS'.padEnd(45));
        assert.equal(at(l, 77, 78), 'E ');
        assert.equal(at(l, 88, 98), '00014107338');
        assert.equal(at(l, 113, 115), '052');
        assert.equal(at(l, 116, 120), '03333');
        assert.equal(at(l, 121, 123), '052');
        assert.equal(at(l, 124, 128), '06667');
        assert.equal(at(l, 129, 131), '052');
        assert.equal(at(l, 132, 136), '06667');
        assert.equal(l.length, 183);
        const t = first(ls, 'SPT');
        assert.equal(at(t, 20, 28), 'P00000001');
        assert.equal(at(t, 35, 39), '03333');
        assert.equal(at(t, 40, 44), '06667');
        assert.equal(at(t, 45, 49), '06667');
        assert.equal(at(t, 50, 50), 'I');
        assert.equal(at(t, 51, 54), '2136');
        assert.equal(at(t, 56, 58), '001');
        assert.equal(t.length, 58);
        const o = first(ls, 'OPU');
        assert.equal(at(o, 20, 21), '02');
        assert.equal(at(o, 31, 75), 'OTHER PUB'.padEnd(45));
        assert.equal(at(o, 113, 115), '010');
        assert.equal(at(o, 116, 120), '01667');
      });

      it('SWR, SWT and PWR of a controlled writer, OWR of another', () => {
        const l = first(ls, 'SWR');
        assert.equal(at(l, 20, 28), 'W00000001');
        assert.equal(at(l, 29, 73), 'MCCARTNEY'.padEnd(45));
        assert.equal(at(l, 74, 103), 'PAUL'.padEnd(30));
        assert.equal(at(l, 105, 106), 'CA');
        assert.equal(at(l, 116, 126), '00014107338');
        assert.equal(at(l, 127, 129), '052');
        assert.equal(at(l, 130, 134), '02500');
        assert.equal(at(l, 138, 142), '00000');
        assert.equal(at(l, 146, 150), '00000');
        assert.equal(l.length, 180);
        const t = first(ls, 'SWT');
        assert.equal(at(t, 20, 28), 'W00000001');
        assert.equal(at(t, 29, 33), '02500');
        assert.equal(at(t, 44, 44), 'I');
        assert.equal(at(t, 45, 48), '2136');
        assert.equal(t.length, 52);
        const p = first(ls, 'PWR');
        assert.equal(at(p, 20, 28), 'P00000001');
        assert.equal(at(p, 29, 73), 'NORTHERN SONGS'.padEnd(45));
        assert.equal(at(p, 102, 110), 'W00000001');
        if (version === '2.2') {
          assert.equal(at(p, 111, 112), '01');
          assert.equal(p.length, 112);
        } else assert.equal(p.length, 110);
        const o = first(ls, 'OWR');
        assert.equal(at(o, 29, 73), 'LENNON'.padEnd(45));
        assert.equal(at(o, 105, 106), 'C ');
        assert.equal(at(o, 127, 129), '021');
      });

      it('ALT, PER and REC', () => {
        const a = first(ls, 'ALT');
        assert.equal(at(a, 20, 79), 'SCRAMBLED EGGS'.padEnd(60));
        assert.equal(at(a, 80, 81), 'AT');
        assert.equal(at(a, 82, 83), 'EN');
        const p = first(ls, 'PER');
        assert.equal(at(p, 20, 64), 'THE BEATLES'.padEnd(45));
        assert.equal(p.length, 118);
        const r = first(ls, 'REC');
        assert.equal(at(r, 20, 27), '19650806');
        assert.equal(at(r, 250, 261), 'GBAYE6500530');
        if (version === '2.2') {
          assert.equal(at(r, 267, 326), 'YESTERDAY'.padEnd(60));
          assert.equal(at(r, 387, 446), 'THE BEATLES'.padEnd(60));
          assert.equal(r.length, 540);
        } else assert.equal(r.length, 266);
      });

      it('record sequence numbers run from 0 in each transaction; transaction numbers from 0 in each group', () => {
        const tx = ls.slice(2, -2);
        assert.deepEqual(tx.map((l) => Number(at(l, 12, 19))), tx.map((_, i) => i));
        assert.ok(tx.every((l) => at(l, 4, 11) === '00000000'));
      });
    });
  }

  it('NWR and REV go in separate groups, numbered, with per-group counts', () => {
    const w = sample();
    const ls = lines(writeCwr(file('2.1', [w, { ...w, code: 'B', transactionType: 'REV' }, { ...w, code: 'C' }])).text);
    const grh = ls.filter((l) => l.startsWith('GRH'));
    assert.deepEqual(grh.map((l) => [at(l, 4, 6), at(l, 7, 11)]), [['NWR', '00001'], ['REV', '00002']]);
    const grt = ls.filter((l) => l.startsWith('GRT'));
    assert.deepEqual(grt.map((l) => Number(at(l, 9, 16))), [2, 1]);
    const nwr = ls.filter((l) => l.startsWith('NWR'));
    assert.deepEqual(nwr.map((l) => Number(at(l, 4, 11))), [0, 1]);
    assert.equal(Number(at(ls.find((l) => l.startsWith('REV'))!, 4, 11)), 0);
    const trl = ls[ls.length - 1]!;
    assert.deepEqual([Number(at(trl, 4, 8)), Number(at(trl, 9, 16)), Number(at(trl, 17, 24))], [2, 3, ls.length]);
  });
});

describe('CWR reader', () => {
  it('refuses wrong counts, a missing trailer, records outside a group, and lines longer than their layout', () => {
    const text = writeCwr(file('2.1')).text;
    const ls = lines(text);
    const join = (xs: string[]) => xs.map((l) => `${l}\r\n`).join('');
    const grt = ls.findIndex((l) => l.startsWith('GRT'));
    const badGrt = [...ls];
    badGrt[grt] = badGrt[grt]!.slice(0, 16) + '00000099' + badGrt[grt]!.slice(24);
    assert.throws(() => readCwr(join(badGrt)), /GRT says 99 records/);
    const badTrl = [...ls];
    badTrl[badTrl.length - 1] = badTrl[badTrl.length - 1]!.slice(0, 8) + '00000002' + badTrl[badTrl.length - 1]!.slice(16);
    assert.throws(() => readCwr(join(badTrl)), /TRL says 2 transactions/);
    assert.throws(() => readCwr(join(ls.slice(0, -1))), /no TRL/);
    assert.throws(() => readCwr(join([ls[0]!, ...ls.slice(2)])), /outside a group/);
    assert.throws(() => readCwr(join([ls[0]!, 'XYZ123', ...ls.slice(1)])), /unknown record type "XYZ" outside a group/);
  });

  it('reads past fields of a later revision and counts, but does not read, record types it has no layout for', () => {
    const ls = lines(writeCwr(file('2.1')).text);
    const join = (xs: string[]) => xs.map((l) => `${l}\r\n`).join('');
    const nwr = ls.findIndex((l) => l.startsWith('NWR'));
    const withExtra = [...ls];
    withExtra[nwr] = `${withExtra[nwr]}EXTRA FIELDS`;
    // an ORN record inside the transaction: the group's record count includes it
    withExtra.splice(nwr + 1, 0, `ORN${'0'.repeat(8)}${'0'.repeat(8)}LIB`);
    const grt = withExtra.findIndex((l) => l.startsWith('GRT'));
    withExtra[grt] = withExtra[grt]!.slice(0, 16) + String(Number(withExtra[grt]!.slice(16, 24)) + 1).padStart(8, '0') + withExtra[grt]!.slice(24);
    const trl = withExtra.length - 1;
    withExtra[trl] = withExtra[trl]!.slice(0, 16) + String(withExtra.length).padStart(8, '0');
    const r = readCwr(join(withExtra));
    assert.equal(r.works[0]!.title, 'YESTERDAY');
    assert.deepEqual(r.skipped, [`line ${nwr + 2}: ORN`]);
  });

  it('reads lines whose trailing blanks were stripped, and LF-only line ends', () => {
    const text = writeCwr(file('2.2')).text.split('\r\n').map((l) => l.trimEnd()).join('\n');
    const r = readCwr(text);
    assert.equal(r.version, '2.2');
    assert.equal(r.works[0]!.title, 'YESTERDAY');
  });

  it('a 1,000-work catalogue written to CWR 2.1 and 2.2 and read back equals what was written', () => {
    const works: CwrWork[] = [];
    const pubs = Array.from({ length: 40 }, (_, i) => ({ code: `P${String(i + 1).padStart(8, '0')}`, name: `Publisher ${i + 1} Ltd`, ipi: i % 3 ? ipiWithCheck(String(200_000_000 + i)) : null }));
    const writers = Array.from({ length: 300 }, (_, i) => ({ code: `W${String(i + 1).padStart(8, '0')}`, lastName: `Writer-${i + 1} Ölmez`, firstName: i % 4 ? `First ${i}` : '', ipi: i % 2 ? ipiWithCheck(String(300_000_000 + i)) : null }));
    const societies = ['PRS', 'ASCAP', 'BMI', 'GEMA', 'SACEM', null];
    for (let i = 0; i < 1000; i++) {
      const nw = 1 + (i % 4);
      const np = i % 5 === 0 ? 0 : 1 + (i % 2);
      const cents = (total: number, n: number) => Array.from({ length: n }, (_, k) => ((Math.floor(total / n) + (k < total % n ? 1 : 0)) / 100).toFixed(2));
      const wpr = cents(np ? 5000 : 10000, nw);
      const wmr = cents(np ? 0 : 10000, nw);
      const ppr = cents(5000, np);
      const pmr = cents(10000, np);
      const wp = pubs.slice(i % 38, (i % 38) + np);
      works.push({
        transactionType: i % 7 === 0 ? 'REV' : 'NWR', title: `Song number ${i} — café`.slice(0, 60), code: `RW${String(i).padStart(12, '0')}`,
        iswc: i % 2 ? `T${String(100_000_000 + i).slice(-9)}${(() => { const d = String(100_000_000 + i).slice(-9); let s = 1; for (let k = 0; k < 9; k++) s += (k + 1) * Number(d[k]); return (10 - (s % 10)) % 10; })()}` : null,
        language: i % 3 ? 'EN' : null, duration: i % 4 ? 60 + i : null,
        alternateTitles: i % 6 ? [] : [{ title: `Alt ${i}`, type: 'AT', language: null }],
        publishers: wp.map((p, k) => ({ ...p, society: societies[(i + k) % 6]!, controlled: k === 0, type: 'E', prShare: ppr[k]!, mrShare: pmr[k]!, srShare: pmr[k]! })),
        writers: Array.from({ length: nw }, (_, k) => {
          const w = writers[(i * 3 + k) % 300]!;
          const controlled = k % 3 !== 2;
          return { ...w, society: societies[(i + k + 1) % 6]!, controlled, designation: ['CA', 'C', 'A', 'AR'][k]!, prShare: wpr[k]!, mrShare: wmr[k]!, srShare: wmr[k]!, publisherCode: controlled && wp[0] ? wp[0].code : null };
        }),
        performers: i % 2 ? [`Artist ${i % 50}`] : [],
        recordings: i % 2 ? [{ isrc: `GBAAA${String(2_600_000 + i).padStart(7, '0')}`, title: `Song number ${i}`, displayArtist: `Artist ${i % 50}`, releaseDate: '20260101', duration: null }] : [],
      });
    }
    // What CWR carries: upper-case ASCII text, NWR group before REV, 2.1 has no recording title or artist.
    const asCarried = (version: '2.1' | '2.2') => [...works.filter((w) => w.transactionType === 'NWR'), ...works.filter((w) => w.transactionType === 'REV')].map((w) => ({
      ...w, title: cwrText(w.title).trim(),
      alternateTitles: w.alternateTitles.map((a) => ({ ...a, title: cwrText(a.title) })),
      publishers: w.publishers.map((p) => ({ ...p, name: cwrText(p.name) })),
      writers: w.writers.map((x) => ({ ...x, lastName: cwrText(x.lastName), firstName: cwrText(x.firstName) })),
      performers: w.performers.map((p) => cwrText(p)),
      recordings: w.recordings.map((r) => (version === '2.2' ? { ...r, title: cwrText(r.title), displayArtist: cwrText(r.displayArtist) } : { ...r, title: '', displayArtist: null })),
    }));
    for (const version of ['2.1', '2.2'] as const) {
      const out = writeCwr(file(version, works));
      assert.equal(out.transactionCount, 1000);
      const back = readCwr(out.text);
      assert.equal(back.works.length, 1000);
      assert.deepEqual(back.works, asCarried(version));
      assert.deepEqual(back.groups.map((g) => [g.transactionType, g.transactionCount]), [['NWR', 857], ['REV', 143]]);
      assert.equal(lines(out.text).length, out.recordCount);
    }
  });
});
