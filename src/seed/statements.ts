/**
 * Demo statements for `npm run seed:demo`: two small statements in real layouts, stored in
 * the object store and registered exactly as an upload is, so the pipeline (decompress →
 * detect → ingest → allocate → aggregate) reads them as soon as workers run (`npm start`):
 *
 *   DistroKid (TSV, USD)      sale months 2026-01 and 2026-02, every demo recording, a few
 *                              stores and countries, one recording the catalogue does not know
 *                              (it shows up on /checklist/royaltyassets);
 *   Believe (semicolon, EUR)   sale month 2026-02 with decimal commas; the EUR → USD rate of
 *                              2026-02 is set so it converts.
 *
 * Amounts come from a fixed pseudo-random sequence (same bytes every run) built as decimal
 * strings, never floats. Idempotent: a workspace that already has files is left alone.
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import Decimal from 'decimal.js';
import type { DemoContext } from './context';
import { registerFile, storageKey, store, DEFAULT_OPTIONS } from '../modules/files/service';
import { upsertRates } from '../modules/settings/service';
import { hasAnyFile } from '../repositories/files';
import { recordingsOnProducts } from '../repositories/catalogue';

const STORES: [string, string][] = [['Spotify', 'Streaming'], ['Apple Music', 'Streaming'], ['YouTube Music', 'Streaming'], ['iTunes', 'Download']];
const COUNTRIES = ['US', 'GB', 'FR', 'DE', 'BR'];
const BELIEVE_COUNTRIES = ['France', 'Germany', 'Belgium'];

/** A small deterministic generator (LCG): the demo is the same on every machine. */
function sequence(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

interface Recording {
  title: string;
  artist: string;
  isrc: string;
  upc: string;
}

export function distroKidStatement(recordings: Recording[], months: string[], seed: number): string {
  const next = sequence(seed);
  const head = ['Date Inserted', 'Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity', 'Team Percentage',
    'Source Type', 'Country of Sale', 'Songwriter Royalties Withheld (USD)', 'Earnings (USD)', 'Recoup (USD)'];
  const rows = [head.join('\t')];
  for (const month of months) {
    for (const r of recordings) {
      for (const [store, type] of STORES) {
        const country = COUNTRIES[next(COUNTRIES.length)]!;
        const qty = type === 'Download' ? 1 + next(5) : 50 + next(5000);
        // streams pay 0.0030–0.0049 each, downloads 0.69
        const each = type === 'Download' ? new Decimal('0.69') : new Decimal(30 + next(20)).div(10_000);
        rows.push([`${months.at(-1)}-28 09:00:00`, `${months.at(-1)}-28`, month, store, r.artist, r.title, r.isrc, r.upc, qty, 100, type, country, 0,
          each.times(qty).toFixed(6), 0].join('\t'));
      }
    }
  }
  return rows.join('\n') + '\n';
}

export function believeStatement(recordings: Recording[], reportingMonth: string, saleMonth: string, seed: number): string {
  const next = sequence(seed);
  const head = ['Reporting Month', 'Sales Month', 'Platform', 'Country / Region', 'Label Name', 'Artist Name', 'Release title', 'Track title', 'UPC', 'ISRC',
    'Release Catalog nb', 'Streaming Subscription Type', 'Release type', 'Sales Type', 'Quantity', 'Client Payment Currency', 'Unit Price',
    'Mechanical Fee', 'Gross Revenue', 'Client share rate', 'Net Revenue'];
  const comma = (d: Decimal, dp: number) => d.toFixed(dp).replace('.', ',');
  const rows = [head.join(';')];
  for (const r of recordings) {
    for (const country of BELIEVE_COUNTRIES) {
      const qty = 20 + next(3000);
      const unit = new Decimal(25 + next(15)).div(10_000);
      const gross = unit.times(qty);
      rows.push([reportingMonth, saleMonth, 'Deezer', country, 'Moonlight Records', r.artist, 'Moonlight Sessions', r.title, r.upc, r.isrc, 'MLR1', 'Premium',
        'Album', 'Stream', qty, 'EUR', comma(unit, 4), '0', comma(gross, 6), '0,7', comma(gross.times('0.7'), 6)].join(';'));
    }
  }
  return '\uFEFF' + rows.join('\n') + '\n';
}

async function storeStatement(ctx: DemoContext, name: string, text: string, contentType: string): Promise<void> {
  const { svc, trx, tenantId, users } = ctx;
  const id = crypto.randomUUID();
  const key = storageKey(tenantId, id);
  const { size, sha256 } = await store(svc).putStream(key, Readable.from([Buffer.from(text, 'utf8')]));
  await registerFile(svc, trx, tenantId, {
    id, originalName: name, contentType, storageKey: key, size, sha256, options: DEFAULT_OPTIONS, uploadedBy: users.finance ?? null,
  });
}

export const statementsSeeder = {
  name: 'statements',
  async run(ctx: DemoContext): Promise<void> {
    const { trx, tenantId, users } = ctx;
    if (await hasAnyFile(trx)) return; // already seeded
    const rows = await recordingsOnProducts(trx);
    const recordings: Recording[] = rows.map((r) => ({ title: r.title, artist: r.display_artist!, isrc: r.isrc!, upc: r.upc! }));
    if (!recordings.length) return; // no catalogue seeded: nothing to earn from
    // a recording the label has not entered yet: unmatched, listed by /checklist/royaltyassets
    const unknown: Recording = { title: 'Glass Garden (Live)', artist: 'Nina Sol', isrc: 'GBMLR2699001', upc: recordings[0]!.upc };

    await upsertRates(trx, tenantId, users.finance ?? null, [{ currency: 'EUR', month: '2026-02', rate: '1.0825' }], 'USD');
    await storeStatement(ctx, 'DistroKid_1772236800000_Moonlight.tsv', distroKidStatement([...recordings, unknown], ['2026-01', '2026-02'], 2026), 'text/tab-separated-values');
    await storeStatement(ctx, 'Believe_Moonlight_2026-03.csv', believeStatement(recordings, '2026-03', '2026-02', 42), 'text/csv');
  },
};
