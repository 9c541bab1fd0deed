/**
 * The ingest's COPY writer (src/modules/files/line-copy.ts) encodes and escapes every value
 * itself, byte by byte. Checked over random text (any Unicode, lone surrogates, tabs,
 * newlines, backslashes, NULs): (1) the bytes equal the plain way of writing them (cp() +
 * Buffer.from), (2) Postgres COPY reads every value back as it went in (NUL dropped).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestApp, type TestApp } from '../helpers/app';
import { rawConnection } from '../../src/db';
import { LineCopyFormatter, LINE_COLUMNS, cp, extraJson } from '../../src/modules/files/line-copy';
import { lineMatch, LineMatcher } from '../../src/modules/royalty/prefill';
import { createTestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import type { CanonicalLine } from '../../parsers/types';

const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ maxLength: 40, unit: fc.constantFrom('\t', '\n', '\r', '\\', '\u0000', 'é', '日', '😀', '\ud800', '\udc00', 'a', ' ', '"') }),
);
const maybe = fc.option(text, { nil: null });

const line = fc.record({
  dsp: maybe, country: maybe, trackTitle: maybe, artist: maybe, releaseTitle: maybe, label: maybe, aggregator: maybe, grossCurrency: maybe,
  isrcRaw: fc.option(text, { nil: undefined }),
  upcRaw: fc.option(text, { nil: undefined }),
  extra: fc.option(fc.dictionary(fc.constantFrom('iswc', 'writers', 'code'), text), { nil: undefined }),
}).map((r): CanonicalLine => ({
  lineNo: 1, saleMonth: '2024-01-01', salePeriodStart: null, salePeriodEnd: '2024-01-31', accountingPeriod: null, isrc: 'QZES81900001', upc: null,
  saleType: 'stream', quantity: '3', gross: null, net: '-0.25', currency: 'EUR', exchangeRate: '1.1', ...r,
}) as CanonicalLine);

/** The plain (slow) way: one template string per line, cp() for every value, then Buffer.from. */
function reference(tenant: number, file: string, l: CanonicalLine, m: string): Buffer {
  const v = [l.lineNo, l.saleMonth, l.salePeriodStart, l.salePeriodEnd, l.accountingPeriod, l.dsp, l.country, l.isrc, l.upc, l.trackTitle, l.artist,
    l.releaseTitle, l.label, l.saleType, l.quantity, l.gross, l.grossCurrency, l.net, l.currency, l.exchangeRate, l.aggregator, l.isrcRaw, l.upcRaw,
    extraJson(l.extra)];
  return Buffer.from(`${tenant}\t${file}\t${v.map((x) => cp(x === undefined || x === null ? null : String(x))).join('\t')}\t${m}\t\\N\t\\N\t\\N\t\\N\n`);
}

describe('ingest COPY writer: bytes and escapes', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('writes every value as cp() + Buffer.from would, and Postgres reads each back unchanged', async () => {
    const file = '8c2f3f7e-3d0b-4c51-9d0e-0a4a4d1c2b7e';
    const lines = fc.sample(line, 2000).map((l, i) => ({ ...l, lineNo: i + 1 }));
    const matches = lines.map((_, i) => (i % 3 === 0 ? null : lineMatch(i % 3 === 1 ? file : null, null, file, 'matched')));
    const fmt = new LineCopyFormatter(7, file, null, null, () => assert.fail('no line is refused'));
    const bytes = fmt.format(lines, matches);
    const expected = lines.map((l, i) => reference(7, file, l, matches[i]?.copy ?? '\\N\t\\N\t\\N\t\\N'));
    if (!bytes.equals(Buffer.concat(expected))) {
      // the first line that differs, for the failure message
      const one = expected.findIndex((e, i) => !new LineCopyFormatter(7, file, null, null, () => {}).format([lines[i]!], [matches[i]!]).equals(e));
      assert.fail(`the bytes differ from cp() + Buffer.from at line ${one + 1}: ${JSON.stringify(lines[one])}`);
    }

    const stored = await app.svc.db.owner.transaction(async (trx) => {
      const cols = LINE_COLUMNS.map((c) => `${c} text`).join(', ');
      await trx.raw(`CREATE TEMP TABLE copy_check (${cols}) ON COMMIT DROP`);
      const conn = await rawConnection(trx);
      await pipeline(Readable.from([bytes]), conn.query(copyFrom(`COPY copy_check FROM STDIN`)));
      const { rows } = await trx.raw(`SELECT * FROM copy_check ORDER BY line_no::int`);
      return rows as Record<string, string | null>[];
    });
    assert.equal(stored.length, lines.length);
    // what Postgres should hold: the text with NULs dropped and lone surrogates as U+FFFD (UTF-8 cannot carry them)
    const want = (s: string | null | undefined) => (s === null || s === undefined ? null : Buffer.from(s.replace(/\u0000/g, '')).toString());
    lines.forEach((l, i) => {
      const r = stored[i]!;
      for (const [col, v] of [['dsp', l.dsp], ['country', l.country], ['track_title', l.trackTitle], ['artist', l.artist], ['release_title', l.releaseTitle],
        ['label', l.label], ['aggregator', l.aggregator], ['gross_currency', l.grossCurrency], ['isrc_raw', l.isrcRaw], ['upc_raw', l.upcRaw]] as const)
        assert.equal(r[col], want(v), `line ${i + 1} ${col}`);
      assert.equal(r.asset_id, matches[i]?.asset ?? null);
      assert.equal(r.net, '-0.25');
    });
  });

  it('with a real matcher: lines waiting for new keys are written once each, matched, round trips per 5,000 waiting lines; a failed round trip rejects', async () => {
    const t = await createTestTenant(app, 'Copy');
    const isrc = (i: number) => `QZCPY26${String(i).padStart(5, '0')}`;
    // the catalogue knows even-numbered recordings only
    const ids = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      const rows = await trx('assets').insert(Array.from({ length: 50 }, (_, i) => ({ tenant_id: t.tenantId, title: `Song ${2 * i}`, isrc: isrc(2 * i) }))).returning(['id', 'isrc']);
      return new Map(rows.map((r: { id: string; isrc: string }) => [r.isrc, r.id]));
    });
    const matcher = (await LineMatcher.open(app.svc, t.tenantId))!;
    assert.ok(matcher);
    const file = '8c2f3f7e-3d0b-4c51-9d0e-0a4a4d1c2b7e';
    const fmt = new LineCopyFormatter(t.tenantId, file, null, matcher, () => assert.fail('no line is refused'));
    const base = fc.sample(line, 1)[0]!;
    // 12,000 lines: 6,000 distinct new keys in the first 7,000 (more than 5,000 wait: a round trip mid-way), then repeats
    // key k: recording k % 100 on release ⌊k / 100⌋ % 60 (at most 60 keys per ISRC: under the matcher's 64 per bucket)
    const mk = (n: number, k: number): CanonicalLine => ({ ...base, lineNo: n, isrc: isrc(k % 100), upc: null, trackTitle: `Song ${k % 100}`, releaseTitle: `Release ${Math.floor(k / 100) % 60}`, currency: 'USD', exchangeRate: null });
    const out: Buffer[] = [];
    for (let n = 1; n <= 12_000; n += 250) {
      const batch = Array.from({ length: 250 }, (_, j) => mk(n + j, n + j <= 7000 ? n + j : (n + j) % 7000));
      const b = await fmt.add(batch);
      if (b) out.push(b);
    }
    const rest = await fmt.flush();
    if (rest) out.push(rest);
    const rows = Buffer.concat(out).toString().split('\n').filter(Boolean).map((r) => r.split('\t'));
    assert.equal(rows.length, 12_000, 'every line once');
    assert.equal(new Set(rows.map((r) => r[2])).size, 12_000, 'no line twice');
    const col = (c: string) => LINE_COLUMNS.indexOf(c as (typeof LINE_COLUMNS)[number]);
    for (const r of rows) {
      const want = ids.get(r[col('isrc')]!) ?? '\\N';
      assert.equal(r[col('asset_id')], want, `line ${r[2]}: ${r[col('isrc')]}`);
      assert.equal(r[col('base_amount')], r[col('net')], 'USD is the base currency: base amount = net');
    }
    assert.ok(matcher.stats.rounds >= 2, `round trips: ${matcher.stats.rounds}`);
    assert.ok(matcher.stats.rounds <= 4, `round trips: ${matcher.stats.rounds}`);

    // a round trip that fails: the batch (and so the ingest's transaction) fails, nothing is swallowed
    const broken = (await LineMatcher.open(app.svc, t.tenantId))!;
    broken.resolve = async () => {
      throw new Error('database went away');
    };
    const f2 = new LineCopyFormatter(t.tenantId, file, null, broken, () => {});
    assert.equal(await f2.add([mk(1, 1)]), null, 'a new key waits');
    await assert.rejects(f2.flush(), /database went away/);

    // a round trip that fails while the reader goes on: the next batch fails with its error
    const broken2 = (await LineMatcher.open(app.svc, t.tenantId))!;
    broken2.resolve = async () => {
      throw new Error('round trip lost');
    };
    const f3 = new LineCopyFormatter(t.tenantId, file, null, broken2, () => {});
    for (let n = 1; n <= 5000; n += 250) await f3.add(Array.from({ length: 250 }, (_, j) => mk(n + j, n + j)));
    await new Promise((r) => setImmediate(r));
    await assert.rejects(f3.add([mk(5001, 5001)]), /round trip lost/);
  });

  it('a round trip runs while the reader goes on; add() waits for it only when 10,000 lines wait', async () => {
    const t = await createTestTenant(app, 'Overlap');
    const isrc = (i: number) => `QZOVL26${String(i).padStart(5, '0')}`;
    const ids = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      const rows = await trx('assets').insert(Array.from({ length: 200 }, (_, i) => ({ tenant_id: t.tenantId, title: `Song ${i}`, isrc: isrc(i) }))).returning(['id', 'isrc']);
      return new Map(rows.map((r: { id: string; isrc: string }) => [r.isrc, r.id]));
    });
    const matcher = (await LineMatcher.open(app.svc, t.tenantId))!;
    // the round trip's answer is held back until the test lets it through
    let letThrough!: () => void;
    const gate = new Promise<void>((r) => (letThrough = r));
    const real = matcher.resolve.bind(matcher);
    let started = 0;
    matcher.resolve = () => {
      started++;
      const done = real();
      return gate.then(() => done);
    };
    const fmt = new LineCopyFormatter(t.tenantId, '8c2f3f7e-3d0b-4c51-9d0e-0a4a4d1c2b7f', null, matcher, () => assert.fail('no line is refused'));
    const base = fc.sample(line, 1)[0]!;
    // key k: recording k % 200 on release ⌊k / 200⌋ (every line a new key; at most 52 keys per ISRC,
    // under the matcher's 64 per bucket), then repeats of the first keys
    const mk = (n: number, k: number): CanonicalLine => ({ ...base, lineNo: n, isrc: isrc(k % 200), upc: null, trackTitle: `Song ${k % 200}`, releaseTitle: `Release ${Math.floor(k / 200)}`, currency: 'USD', exchangeRate: null });
    const batch = (n: number, key: (n: number) => number) => Array.from({ length: 250 }, (_, j) => mk(n + j, key(n + j)));
    const settled = async (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 300))]);
    const out: Buffer[] = [];
    const keep = async (p: Promise<Buffer | null>) => {
      const b = await p;
      if (b) out.push(b);
    };
    // 5,000 lines of new keys: a round trip starts; the next 4,750 lines (new keys again) do not wait for it
    for (let n = 1; n <= 9750; n += 250) assert.ok(await settled(keep(fmt.add(batch(n, (x) => x)))), `batch at line ${n} did not wait`);
    assert.equal(started, 1, 'one round trip under way');
    // the 10,000th waiting line: add() waits for the round trip
    const blocked = keep(fmt.add(batch(9751, (x) => x)));
    assert.equal(await settled(blocked), false, 'add() waits once 10,000 lines wait');
    letThrough();
    await blocked;
    await keep(fmt.add(batch(10_001, (x) => x % 200)));
    const rest = await fmt.flush();
    if (rest) out.push(rest);
    const rows = Buffer.concat(out).toString().split('\n').filter(Boolean).map((r) => r.split('\t'));
    assert.equal(rows.length, 10_250, 'every line once');
    assert.equal(new Set(rows.map((r) => r[2])).size, 10_250, 'no line twice');
    const col = (c: string) => LINE_COLUMNS.indexOf(c as (typeof LINE_COLUMNS)[number]);
    for (const r of rows) assert.equal(r[col('asset_id')], ids.get(r[col('isrc')]!), `line ${r[2]}`);
    assert.ok(started >= 2 && started <= 3, `round trips: ${started}`);
  });

  it('the DSP is part of a match key only when a rule names a DSP', async () => {
    const t = await createTestTenant(app, 'ByDsp');
    const [a, b] = await withTenant(app.svc.db.app, t.tenantId, async (trx) =>
      trx('assets').insert([{ tenant_id: t.tenantId, title: 'Song A', isrc: 'QZDSP2600001' }, { tenant_id: t.tenantId, title: 'Song B', isrc: 'QZDSP2600002' }]).returning('id'),
    );
    const base = fc.sample(line, 1)[0]!;
    const stores = ['Spotify', 'Deezer', 'Special Store'];
    const lines = Array.from({ length: 300 }, (_, i): CanonicalLine => ({ ...base, lineNo: i + 1, isrc: 'QZDSP2600001', upc: null, trackTitle: 'Song A', releaseTitle: null, dsp: stores[i % 3]!, currency: 'USD', exchangeRate: null }));
    const run = async () => {
      const matcher = (await LineMatcher.open(app.svc, t.tenantId))!;
      const fmt = new LineCopyFormatter(t.tenantId, '8c2f3f7e-3d0b-4c51-9d0e-0a4a4d1c2b80', null, matcher, () => assert.fail('no line is refused'));
      const out = [await fmt.add(lines), await fmt.flush()].filter((x): x is Buffer => x !== null);
      const col = LINE_COLUMNS.indexOf('asset_id');
      const dspCol = LINE_COLUMNS.indexOf('dsp');
      const rows = Buffer.concat(out).toString().split('\n').filter(Boolean).map((r) => r.split('\t'));
      assert.equal(rows.length, 300);
      return { keys: matcher.stats.keys, assetBy: new Map(rows.map((r) => [r[dspCol]!, r[col]!])) };
    };
    // no rule names a DSP: the three stores' lines are one key
    const plain = await run();
    assert.equal(plain.keys, 1);
    assert.deepEqual([...plain.assetBy.values()], [a.id, a.id, a.id]);
    // a rule for one store: keys per DSP, and that store's lines follow the rule
    await withTenant(app.svc.db.app, t.tenantId, async (trx) =>
      trx.raw(`INSERT INTO matching_rules (tenant_id, kind, dsp_norm, isrc, asset_id) VALUES (?, 'asset', rondo_norm('Special Store'), 'QZDSP2600001', ?)`, [t.tenantId, b.id]),
    );
    const ruled = await run();
    assert.equal(ruled.keys, 3);
    assert.equal(ruled.assetBy.get('Special Store'), b.id);
    assert.equal(ruled.assetBy.get('Spotify'), a.id);
    assert.equal(ruled.assetBy.get('Deezer'), a.id);
  });
});
