/**
 * Deterministic DistroKid-style statements (the current 15-column TSV layout) for the bench
 * and the kill-and-retry test. Same seed, same bytes. Also returns the expected total as an
 * exact decimal string (net amounts are whole micro-dollars: summed as BigInt).
 */
import fs from 'node:fs';
import { gtinCheckDigit } from '../src/modules/catalogue/identifiers';

export const DK_HEADER = 'Date Inserted\tReporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSource Type\tCountry of Sale\tSongwriter Royalties Withheld (USD)\tEarnings (USD)\tRecoup (USD)\n';
const STORES = ['Spotify', 'Apple Music', 'YouTube Music', 'Amazon Music', 'Deezer', 'Tidal', 'TikTok', 'Instagram/Facebook'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'BR', 'JP', 'MX', 'CA', 'AU', 'NL', 'SE', 'ES', 'IT', 'IN', 'KR'];
const TITLES = ['Midnight Tides', 'Sél de Mer', 'Glass Harbour', 'Northern Static', 'Paper Suns', 'Low Orbit', 'Quiet Engines', 'Velvet Rain'];

/** The catalogue the generated lines name (bench:ingest builds it before uploading). */
export const DK_ARTIST = 'Nova Lune';
/** Recordings t = 0 … DK_RECORDINGS − 1; recording t is on release floor(t / 10). */
export const DK_RECORDINGS = 20_000;
export const dkTitle = (t: number) => `${TITLES[t % TITLES.length]} ${t}`;
export const dkIsrc = (t: number) => `QZES8${String(1900000 + t).padStart(7, '0')}`;
/**
 * The statement's 12-digit UPC of release r, its check digit right (a wrong one leaves the line
 * without its UPC, matched to no product); the catalogue stores it as GTIN-13: a leading 0.
 */
export const dkUpc = (r: number) => {
  const body = `8597${String(1000000 + r).padStart(7, '0')}`;
  return `${body}${gtinCheckDigit(body)}`;
};

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function micro(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? '-' : ''}${a / 1000000n}.${(a % 1000000n).toString().padStart(6, '0')}`;
}

/** Writes `lines` data lines; returns the exact USD total and byte size. */
export async function writeDistroKid(path: string, lines: number, seed = 42): Promise<{ total: string; bytes: number }> {
  const r = rng(seed);
  const out = fs.createWriteStream(path);
  let total = 0n;
  let bytes = 0;
  let buf = DK_HEADER;
  for (let i = 0; i < lines; i++) {
    const month = 1 + Math.floor(r() * 12);
    const t = Math.floor(r() * DK_RECORDINGS);
    const isrc = dkIsrc(t);
    const upc = dkUpc(Math.floor(t / 10));
    const qty = 1 + Math.floor(r() * 500);
    const cents = BigInt(Math.floor(r() * 3_000_000)) - (r() < 0.01 ? 2_000_000n : 0n); // a few negative adjustments
    total += cents;
    buf += `2024-02-05 10:00:00\t2024-02-05\t2023-${String(month).padStart(2, '0')}\t${STORES[i % STORES.length]}\t${DK_ARTIST}\t${dkTitle(t)}\t${isrc}\t${upc}\t${qty}\t100\tStreaming\t${COUNTRIES[(i * 7) % COUNTRIES.length]}\t0\t${micro(cents)}\t0\n`;
    if (buf.length > 1 << 20) {
      bytes += Buffer.byteLength(buf);
      if (!out.write(buf)) await new Promise<void>((res) => out.once('drain', () => res()));
      buf = '';
    }
  }
  bytes += Buffer.byteLength(buf);
  out.write(buf);
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
  return { total: micro(total).replace(/\.?0+$/, '') || '0', bytes };
}
