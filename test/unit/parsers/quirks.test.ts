import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import {
  BATCH_SIZE, builtinPatterns, detectArchive, detectSource, readStatement, sniffDelimiter, sniffEncoding, validatePattern,
  WINNER_THRESHOLD, type SourcePattern,
} from '../../../parsers/index';
import { fixture, pattern, read } from './helpers';

const noop = { lines() {}, error() {} };

describe('quirks', () => {
  it('ragged-row.tsv: malformed lines reported with their line numbers, the rest kept', async () => {
    const { summary, errors, lines } = await read('ragged-row.tsv', 'distrokid');
    assert.deepEqual(
      errors.map((e) => [e.lineNo, e.reason]),
      [
        [4, 'expected 15 fields, found 6'],
        [6, 'unparsable number in "Earnings (USD)": "abc"'],
        [8, 'missing amount in "Earnings (USD)"'],
        [9, 'expected 15 fields, found 16'],
        [10, 'unparsable date in "Sale Month": "2024-13"'],
      ],
    );
    assert.equal(errors[0]!.raw, '2024-02-05 10:00:00\t2024-02-05\t2024-01\tSpotify\tNova Lune\tC');
    assert.deepEqual(lines.map((l) => l.lineNo), [2, 3, 5, 7, 11]);
    assert.deepEqual([summary.rowsRead, summary.rowsIngested, summary.rowsFailed], [10, 5, 5]);
    assert.deepEqual(summary.totals, { USD: '1.7' });
  });

  it('quoted-delimiters-newlines.csv: quoted commas/quotes/newlines kept, physical line numbers right', async () => {
    for (const chunk of [7, 64, 1 << 20]) {
      const { errors, lines, summary } = await read('quoted-delimiters-newlines.csv', 'tunecore', chunk);
      assert.deepEqual(lines.map((l) => l.lineNo), [2, 3, 4, 7, 9, 11], `chunk ${chunk}`);
      assert.deepEqual(errors.map((e) => [e.lineNo, e.reason]), [[8, 'expected 21 fields, found 23']]);
      assert.equal(lines[2]!.trackTitle, 'Line one\nline two\nline three');
      assert.equal(lines[3]!.trackTitle, 'He said "hi", then left');
      assert.equal(lines[0]!.artist, 'Nova Lune, feat. "Kai"');
      assert.equal(lines[5]!.releaseTitle, 'Rel, with comma');
      assert.deepEqual(summary.totals, { USD: '0.21' });
    }
  });

  it('negative-adjustments.tsv: negative corrections kept so totals reconcile', async () => {
    const { lines, summary } = await read('negative-adjustments.tsv', 'distrokid');
    assert.equal(lines.length, 8);
    assert.deepEqual(summary.totals, { USD: '1.503257249999' });
    assert.deepEqual(lines.filter((l) => l.net.startsWith('-')).map((l) => l.quantity), ['-300', '-50', '10', '-1']);
  });

  it('two-currencies.csv: totals per currency', async () => {
    const { summary } = await read('two-currencies.csv', 'fuga');
    assert.deepEqual(Object.keys(summary.totals), ['EUR', 'USD']);
  });

  it('bom-header.csv: BOM stripped before the first header name', async () => {
    assert.deepEqual(sniffEncoding(fixture('bom-header.csv')), { encoding: 'utf-8', bom: true });
    const { lines } = await read('bom-header.csv', 'orchard');
    assert.equal(lines[0]!.accountingPeriod, '2025-01-01'); // first column mapped despite the BOM
  });

  it('sniffs encodings and delimiters', () => {
    assert.deepEqual(sniffEncoding(fixture('utf16-bandcamp.csv')), { encoding: 'utf-16le', bom: true });
    assert.deepEqual(sniffEncoding(fixture('utf16-bandcamp.csv').subarray(2)), { encoding: 'utf-16le', bom: false });
    assert.deepEqual(sniffEncoding(fixture('latin1-distrokid.tsv')), { encoding: 'windows-1252', bom: false });
    assert.deepEqual(sniffEncoding(fixture('DistroKid_1693900000000_NovaLune.tsv')), { encoding: 'utf-8', bom: false });
    assert.equal(sniffDelimiter(fixture('semicolon-decimal-comma.csv').toString()), ';');
    assert.equal(sniffDelimiter(fixture('apple-music-streaming_0723.tsv').toString()), '\t');
    assert.equal(sniffDelimiter(fixture('quoted-delimiters-newlines.csv').toString()), ',');
  });

  it('detectArchive by magic bytes', () => {
    assert.equal(detectArchive(fixture('YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz')), 'gzip');
    assert.equal(detectArchive(Buffer.from('504b0304140000000800', 'hex')), 'zip');
    assert.equal(detectArchive(Buffer.from('date,amount\n')), null);
  });

  it('detection works on a still-gzipped head, from the .csv.gz name and content', () => {
    const f = 'YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz';
    const [top] = detectSource({ fileName: f, head: fixture(f) }, builtinPatterns);
    assert.equal(top!.patternKey, 'youtube-asset-raw');
    assert.ok(top!.score >= WINNER_THRESHOLD);
    assert.deepEqual(top!.period, { start: '2023-07-01', end: '2023-07-31' });
    assert.equal(top!.confidence.period, 1);
  });
});

describe('ambiguity', () => {
  it('a generic CSV gets no candidate >= 0.8', () => {
    const c = detectSource({ fileName: 'export.csv', head: fixture('generic.csv') }, builtinPatterns);
    assert.ok(c.every((x) => x.score < WINNER_THRESHOLD), JSON.stringify(c[0]));
  });
  it('two patterns with the same header set: neither is a winner', () => {
    const clone: SourcePattern = { ...pattern('tunecore'), key: 'tunecore-copy', name: 'copy', detect: { ...pattern('tunecore').detect } };
    const c = detectSource({ fileName: 'tunecore-sales-report.csv', head: fixture('tunecore-sales-report.csv') }, [...builtinPatterns, clone]);
    assert.deepEqual(c.slice(0, 2).map((x) => x.patternKey).sort(), ['tunecore', 'tunecore-copy']);
    assert.ok(c.every((x) => x.score < WINNER_THRESHOLD));
    assert.match(c[0]!.reasons.join(' '), /ambiguous/);
  });
  it('a header-only match without the file name still wins (>= 0.8)', () => {
    const c = detectSource({ fileName: 'upload.tsv', head: fixture('DistroKid_1693900000000_NovaLune.tsv') }, builtinPatterns);
    assert.equal(c[0]!.patternKey, 'distrokid');
    assert.ok(c[0]!.score >= WINNER_THRESHOLD && c[0]!.score < 0.9);
  });
  it('period confidence from the first rows when nothing else says it', () => {
    const c = detectSource({ fileName: 'DistroKid_1_x.tsv', head: fixture('DistroKid_1683000000000_NovaLune.tsv') }, builtinPatterns);
    assert.deepEqual(c[0]!.period, { start: '2023-03-01', end: '2023-04-30' });
    assert.equal(c[0]!.confidence.period, 0.6);
  });
});

describe('rejections', () => {
  it('a header that does not match the pattern rejects with a clear error', async () => {
    await assert.rejects(
      readStatement(Readable.from([fixture('generic.csv')]), { fileName: 'x.csv', pattern: pattern('tunecore') }, noop),
      /header does not match source pattern "tunecore".*missing column\(s\) "Sales Period"/,
    );
  });
  it('invalid UTF-8 under an explicit utf-8 pattern rejects', async () => {
    const p = { ...pattern('distrokid-2018'), format: { delimiter: '\t', encoding: 'utf-8' } };
    await assert.rejects(
      readStatement(Readable.from([fixture('latin1-distrokid.tsv')]), { fileName: 'x.tsv', pattern: p }, noop),
      /not valid UTF-8/,
    );
  });
  it('auto encoding: ASCII head then a latin1 byte later switches to latin1 instead of failing', async () => {
    const head = fixture('DistroKid_1683000000000_NovaLune.tsv').toString('utf8').replace(/é/g, 'e');
    const tail = Buffer.from('2023-05-02\t2023-04\tDeezer\tChlo\xe9\tT\t\t\t1\t50\tSong\tFR\t0\t1.5\n', 'latin1');
    const lines: string[] = [];
    const s = await readStatement(Readable.from([Buffer.from(head), tail]), { fileName: 'x.tsv', pattern: pattern('distrokid-2023') }, {
      lines: (b) => void lines.push(...b.map((l) => l.artist ?? '')),
      error() {},
    });
    assert.equal(lines.at(-1), 'Chloé');
    assert.equal(s.rowsIngested, 16);
  });
  it('an invalid pattern rejects', async () => {
    await assert.rejects(readStatement(Readable.from(['a']), { fileName: 'x', pattern: { key: 'x' } }, noop), /invalid source pattern/);
  });
});

describe('back-pressure and batching', () => {
  it(`awaits the sink and sends batches of at most BATCH_SIZE (${BATCH_SIZE}) lines`, async () => {
    const header = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)\n';
    function* gen() {
      yield header;
      for (let i = 0; i < 4 * BATCH_SIZE + 95; i++) yield `2023-05-02\t2023-04\tSpotify\tA\tT\tQZES81912345\t859712345677\t1\t100\tSong\tUS\t0\t0.000001\n`;
    }
    const sizes: number[] = [];
    let inFlight = false;
    const s = await readStatement(Readable.from(gen()), { fileName: 'x.tsv', pattern: pattern('distrokid-2023') }, {
      async lines(b) {
        assert.equal(inFlight, false);
        inFlight = true;
        await new Promise((r) => setTimeout(r, 5));
        sizes.push(b.length);
        inFlight = false;
      },
      error() {},
    });
    assert.deepEqual(sizes, [BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, 95]);
    assert.deepEqual(s.totals, { USD: `0.${String(4 * BATCH_SIZE + 95).padStart(6, '0')}` });
  });
});

describe('validatePattern', () => {
  it('accepts a minimal JSON pattern and reports errors on bad ones', () => {
    const minimal = {
      key: 'my-label-csv', name: 'My label', aggregator: 'Me', layout: 'table',
      detect: { headers: ['Month', 'Amount'] }, format: { delimiter: 'auto', encoding: 'auto' },
      columns: { saleMonth: { from: 'Month' }, net: { from: 'Amount' }, currency: { const: 'EUR' } },
    };
    assert.equal(validatePattern(minimal).ok, true);
    const bad = validatePattern({ ...minimal, extra: 1, detect: { headers: [], fileName: '(' } });
    assert.equal(bad.ok, false);
    const bad2 = validatePattern({ ...minimal, detect: { headers: ['a'], fileName: '(' }, columns: { ...minimal.columns, isrc: {} } });
    assert.ok(!bad2.ok && bad2.errors.some((e) => /fileName is not a valid regular expression/.test(e)) && bad2.errors.some((e) => /columns\/isrc/.test(e)));
  });
});

describe('quirks: cp932 (Japanese aggregators)', () => {
  const jp: SourcePattern = {
    key: 'jp-aggregator-cp932',
    name: 'Japanese aggregator (cp932 CSV)',
    aggregator: 'JP Aggregator',
    layout: 'table',
    detect: { fileName: 'cp932', headers: ['集計月', '配信ストア', '国', 'アーティスト名', '楽曲名', 'ISRC', 'JAN', '数量', '収益(円)', '通貨'] },
    format: { delimiter: ',', encoding: 'cp932' },
    columns: {
      saleMonth: { from: '集計月' }, dsp: { from: '配信ストア' }, country: { from: '国' }, artist: { from: 'アーティスト名' },
      trackTitle: { from: '楽曲名' }, isrc: { from: 'ISRC' }, upc: { from: 'JAN' }, quantity: { from: '数量' },
      net: { from: '収益(円)' }, currency: { from: '通貨' },
    },
  };

  it('cp932-japanese.csv: decoded by its pattern (multi-byte characters split across chunks), detected, exact totals', async () => {
    const buf = fixture('cp932-japanese.csv');
    for (const chunk of [3, 97, 1 << 20]) {
      const parts: Buffer[] = [];
      for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
      const lines: any[] = [];
      const errors: any[] = [];
      const summary = await readStatement(Readable.from(parts), { fileName: 'cp932-japanese.csv', pattern: jp }, {
        lines: (b) => void lines.push(...b),
        error: (e) => void errors.push(e),
      });
      assert.deepEqual(errors, [], `chunk ${chunk}`);
      assert.deepEqual(lines.map((l) => [l.artist, l.trackTitle, l.dsp, l.quantity, l.net]), [
        ['月光バンド', '夜明けの歌', 'Spotify', '1200', '1234.5'],
        ['月光バンド', '海へ、また', 'LINE MUSIC', '300', '321'],
        ['ソラ・ミドリ', '～波～', 'Apple Music', '45', '-12.25'],
      ], `chunk ${chunk}`);
      assert.deepEqual(summary.totals, { JPY: '1543.25' });
    }
    const [top, next] = detectSource({ fileName: 'jp-statement.csv', head: buf }, [...builtinPatterns, jp]);
    assert.equal(top!.patternKey, 'jp-aggregator-cp932', JSON.stringify(top));
    assert.ok(top!.score >= WINNER_THRESHOLD, JSON.stringify(top));
    assert.ok(next!.score < WINNER_THRESHOLD);
    assert.deepEqual(top!.period, { start: '2024-03-01', end: '2024-03-31' });
  });
});
