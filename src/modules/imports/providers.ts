/**
 * Catalogue import providers (docs/catalogue-import.md). A provider turns a query into
 * staged items: `{kind, externalRef, data}` with the catalogue fields below, identifiers
 * normalised. Nothing here writes the catalogue.
 *
 *   file          a CSV or JSON catalogue sent in the fetch body (`query.csv`, `query.json` or `query.rows`)
 *   distributor   the releases the workspace's distributor holds (needs distributor credentials)
 */
import Papa from 'papaparse';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { parseIsrc, parseUpc } from '../catalogue/identifiers';
import { distributorClient } from '../distributor/service';
import type { DistributorRelease } from '../distributor/client';

export type ItemKind = 'asset' | 'product';

/** Staged fields of an asset (recording) or a product (release). */
export interface StagedData {
  title: string;
  isrc?: string | null;
  upc?: string | null;
  displayArtist?: string | null;
  artists?: string[];
  version?: string | null;
  type?: string | null;
  format?: string | null;
  label?: string | null;
  releaseDate?: string | null;
  catalogNumber?: string | null;
  mainGenre?: string[];
  /** Products: the ISRCs of their tracks, in order. */
  tracks?: string[];
}

export interface StagedItem {
  kind: ItemKind;
  externalRef: string | null;
  data: StagedData;
}

export const ASSET_FIELDS = ['title', 'isrc', 'displayArtist', 'artists', 'version', 'type', 'mainGenre'] as const;
export const PRODUCT_FIELDS = ['title', 'upc', 'displayArtist', 'artists', 'type', 'format', 'label', 'releaseDate', 'catalogNumber', 'mainGenre', 'tracks'] as const;

/** Rows a file may hold; releases a distributor fetch may stage. */
export const MAX_FILE_ROWS = 5000;
export const MAX_DISTRIBUTOR_RELEASES = 1000;

export interface FileQuery { csv?: string; json?: string; rows?: Record<string, unknown>[] }
export interface DistributorQuery { query?: string; limit?: number }

export const PROVIDERS = [
  { id: 'file', name: 'File: a CSV or JSON catalogue', searchable: false },
  { id: 'distributor', name: 'Distributor: the releases it holds for the workspace', searchable: true },
] as const;
export type ProviderId = (typeof PROVIDERS)[number]['id'];

const str = (v: unknown): string | null => (v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim());
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x).trim()) : String(v ?? '').split(/[;|]/).map((x) => x.trim())).filter(Boolean);

/** Clean and check staged fields; `where` names the field in a problem ("query.rows[2]"). Problems are pushed. */
export function cleanData(kind: ItemKind, raw: Record<string, unknown>, where: string, problems: string[]): StagedData {
  const title = str(raw.title);
  if (!title) problems.push(`${where}.title is required`);
  else if (title.length > 500) problems.push(`${where}.title is longer than 500 characters`);
  const d: StagedData = { title: title ?? '' };
  for (const f of ['displayArtist', 'version', 'type', 'format', 'label', 'catalogNumber'] as const) {
    if (raw[f] === undefined) continue;
    const v = str(raw[f]);
    if (v && v.length > 500) problems.push(`${where}.${f} is longer than 500 characters`);
    d[f] = v;
  }
  for (const f of ['artists', 'mainGenre'] as const) if (raw[f] !== undefined) d[f] = list(raw[f]).slice(0, 100);
  if (raw.releaseDate !== undefined) {
    const v = str(raw.releaseDate);
    if (v && !(/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString().startsWith(v))) problems.push(`${where}.releaseDate must be a date YYYY-MM-DD`);
    d.releaseDate = v;
  }
  if (kind === 'asset') {
    if (d.type && !['Audio', 'Video', 'Other'].includes(d.type)) problems.push(`${where}.type must be Audio, Video or Other`);
    const p = parseIsrc(str(raw.isrc) ?? '');
    if ('error' in p) problems.push(`${where}.isrc: ${p.error}`);
    else d.isrc = p.isrc;
  } else {
    const p = parseUpc(str(raw.upc) ?? '');
    if ('error' in p) problems.push(`${where}.upc: ${p.error}`);
    else d.upc = p.upc;
    if (raw.tracks !== undefined) {
      d.tracks = [];
      for (const [i, t] of list(raw.tracks).entries()) {
        const q = parseIsrc(t);
        if ('error' in q) problems.push(`${where}.tracks[${i}]: ${q.error}`);
        else d.tracks.push(q.isrc);
      }
    }
  }
  return d;
}

/** The kind of a file row: `kind` when given, else product when it has a upc, asset when it has an isrc. */
function kindOf(r: Record<string, unknown>, where: string, problems: string[]): ItemKind | null {
  const k = str(r.kind)?.toLowerCase();
  if (k === 'asset' || k === 'product') return k;
  if (k) return problems.push(`${where}.kind must be asset or product`), null;
  if (str(r.upc)) return 'product';
  if (str(r.isrc)) return 'asset';
  problems.push(`${where} has neither a upc (product) nor an isrc (asset)`);
  return null;
}

/** The file provider: parse and check every row; any problem refuses the whole file (400 naming each row and field). */
export function fileItems(q: FileQuery): StagedItem[] {
  const given = (['csv', 'json', 'rows'] as const).filter((k) => q[k] !== undefined);
  if (given.length !== 1) throw new ValidationError('Invalid request', ['body.query needs exactly one of csv, json or rows'], 'INVALID_QUERY');
  let rows: unknown;
  if (q.rows) rows = q.rows;
  else if (q.json !== undefined) {
    try {
      rows = JSON.parse(q.json);
    } catch {
      throw new ValidationError('Invalid request', ['body.query.json is not valid JSON'], 'INVALID_QUERY');
    }
  } else {
    const p = Papa.parse<Record<string, string>>(q.csv!.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim() });
    if (p.errors.length) throw new ValidationError('Invalid request', p.errors.slice(0, 20).map((e) => `body.query.csv row ${(e.row ?? 0) + 1}: ${e.message}`), 'INVALID_QUERY');
    rows = p.data;
  }
  if (!Array.isArray(rows) || rows.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) throw new ValidationError('Invalid request', ['body.query: the catalogue must be a list of objects'], 'INVALID_QUERY');
  if (rows.length === 0) throw new ValidationError('Invalid request', ['body.query: the catalogue has no rows'], 'INVALID_QUERY');
  if (rows.length > MAX_FILE_ROWS) throw new ValidationError('Invalid request', [`body.query: at most ${MAX_FILE_ROWS} rows`], 'INVALID_QUERY');
  const problems: string[] = [];
  const items: StagedItem[] = [];
  for (const [i, r] of (rows as Record<string, unknown>[]).entries()) {
    const where = `query.rows[${i}]`;
    const kind = kindOf(r, where, problems);
    if (!kind) continue;
    const data = cleanData(kind, r, where, problems);
    items.push({ kind, externalRef: str(r.externalId) ?? str(r.id), data });
  }
  if (problems.length) throw new ValidationError('Invalid catalogue', problems.slice(0, 100), 'INVALID_CATALOGUE');
  return items;
}

/** One distributor release → its recordings (assets) and the release (product). */
export function releaseItems(r: DistributorRelease): StagedItem[] {
  const problems: string[] = [];
  const out: StagedItem[] = [];
  for (const t of r.tracks) {
    if (!t.isrc) continue;
    out.push({ kind: 'asset', externalRef: `${r.id}:${t.isrc}`, data: cleanData('asset', { title: t.title, isrc: t.isrc, displayArtist: r.artist, artists: [r.artist] }, 'track', problems) });
  }
  if (r.upc) {
    out.push({
      kind: 'product', externalRef: r.id,
      data: cleanData('product', { title: r.title, upc: r.upc, displayArtist: r.artist, artists: [r.artist], label: r.label, releaseDate: r.releaseDate, tracks: r.tracks.map((t) => t.isrc).filter(Boolean) }, 'release', problems),
    });
  }
  // a release whose identifiers the distributor got wrong is not staged (logged by the caller)
  return problems.length ? [] : out;
}

/** Live search of the distributor's catalogue (stages nothing). */
export async function searchDistributor(svc: AppServices, tenantId: number, query: string, page: number, size: number) {
  const client = await distributorClient(svc, tenantId);
  const r = await client.releases(query, page, size);
  return { data: r.data, total: r.meta.total };
}

/** Every release matching the query, up to `limit`, as staged items. */
export async function distributorItems(svc: AppServices, tenantId: number, q: DistributorQuery): Promise<StagedItem[]> {
  const client = await distributorClient(svc, tenantId);
  const limit = q.limit ?? 200;
  const releases: DistributorRelease[] = [];
  for (let page = 1; releases.length < limit; page++) {
    const r = await client.releases(q.query ?? '', page, 50);
    releases.push(...r.data);
    if (r.data.length === 0 || page * 50 >= r.meta.total) break;
  }
  const items: StagedItem[] = [];
  for (const r of releases.slice(0, limit)) {
    const got = releaseItems(r);
    if (!got.length) svc.log.warn({ tenantId, release: r.id }, 'catalogue import: a distributor release with invalid identifiers was not staged');
    items.push(...got);
  }
  return items;
}
