/**
 * Ingest's share of allocation: lines are COPYed into royalty_lines already matched and, where
 * it is exact and simple, converted, so allocation does not rewrite every line of a file
 * (a second full write of the lines: measured 26 s per 1M lines).
 *
 * While the ingest reads, each batch's NEW match keys (isrc, upc, track title, artist, release
 * title, DSP; '' for none) are resolved by the allocation's own SQL (resolveMatchKeys) in a
 * short read transaction on the app pool, and remembered per file (a trie of the key's
 * parts: no string built per line). The currency is filled when the rule gives a
 * multiplication: the base currency (rate 1) or the workspace's monthly rate for the line's
 * sale month, computed exactly (scaled BigInt, half away from zero at 20 places or the net's
 * own if more, as Postgres' round(net × rate, greatest(20, scale(net)))); a statement rate (a division) or a line without a sale
 * month is left to the allocation step.
 *
 * Not used with autoCreateCatalogue (creating catalogue rows is the allocation step's job) or
 * "store A is DSP B" rules (they change the keys). Whatever is filled here, the allocation
 * step re-checks per key group and rewrites only the lines whose result differs (a catalogue,
 * rule or rate change in between) — or, when every line was decided here and nothing changed
 * since the matcher's snapshot, takes them as they are (decided.ts); lines past MAX_KEYS
 * distinct keys are left to it too.
 *
 * The share set (the allocation's decision) is stored with a converted line too when its
 * (recording, product) pair has no candidate split with dates, territories or a sale type
 * (then the line's own fields cannot change it): computed by the allocation's SQL per key,
 * its rows written to royalty_share_sets (content-addressed, immutable). The allocation step
 * recomputes every decision and rewrites only the lines whose share set differs, so no line
 * is written twice in the common case.
 */
import { withTenant } from '../../db';
import type { AppServices } from '../../services';
import { getSettings } from '../settings/service';
import { prepareSplitKeys, writeShareSets, ZERO_UUID } from './allocate';
import { resolveMatchKeys, MATCH_STATUS_SQL } from './match';
import { formatScaled } from '../../../parsers/output';
import { updateFile } from '../../repositories/files';

/** Distinct match keys remembered per file (memory bound: ~300 bytes each). */
const MAX_KEYS = 100_000;

export interface LineMatch {
  asset: string | null;
  product: string | null;
  artist: string | null;
  status: string;
  /** The four values as COPY text (asset, product, artist, status), built once per key: appended to every line of the key. */
  copy: string;
  /** The share set that pays the key's lines (converted lines only); null: none, or left to the allocation step. */
  set: string | null;
  /** Whether `set` is the allocation's decision for every converted line of the key (unmatched, or no split condition can matter). */
  decided: boolean;
  /** Recording or product not found (the allocation offers suggestions for the key). */
  partial: boolean;
}

/** A match with its COPY text (built once per key, not per line). */
export function lineMatch(asset: string | null, product: string | null, artist: string | null, status: string, set: string | null = null, decided = false): LineMatch {
  const copy = `${asset ?? '\\N'}\t${product ?? '\\N'}\t${artist ?? '\\N'}\t${status}`;
  // made flat once here (ASCII: uuids and a status), as every line of the key copies it byte by byte
  return { asset, product, artist, status, copy: Buffer.from(copy, 'latin1').toString('latin1'), set, decided, partial: asset === null || product === null };
}

/** Keys sharing a first part (the ISRC, else the track title): compared part by part. */
interface Entry {
  k: string[];
  m: LineMatch;
}
/** Keys remembered per first part at most (a longer bucket is left to the allocation step). */
const BUCKET_MAX = 64;
const first = (k: string[]) => (k[0] !== '' ? k[0]! : '\u0000' + k[2]!);
/**
 * A copy of the string that does not keep its source alive: a parser's cell of 13+ characters
 * is a slice that keeps its whole input chunk (64 KB of text) in memory.
 */
export const own = (s: string) => (s.length >= 13 ? Buffer.from(s, 'utf16le').toString('utf16le') : s); // utf16le: exact, lone surrogates too
function same(a: string[], b: string[]): boolean {
  return a[5] === b[5] && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4];
}

function scaled(s: string): { v: bigint; scale: number } {
  const dot = s.indexOf('.');
  if (dot === -1) return { v: BigInt(s), scale: 0 };
  return { v: BigInt(s.slice(0, dot) + s.slice(dot + 1)), scale: s.length - dot - 1 };
}

/** v / 10^drop rounded half away from zero. */
function roundDrop(v: bigint, drop: number): bigint {
  if (drop <= 0) return v * 10n ** BigInt(-drop);
  const d = 10n ** BigInt(drop);
  const neg = v < 0n;
  const a = neg ? -v : v;
  let q = a / d;
  if ((a % d) * 2n >= d) q += 1n;
  return neg ? -q : q;
}


/** Fewest decimals of a base amount (allocate.ts BASE_AMOUNT): at least 20, never fewer than the net's. */
export const BASE_SCALE = 20;

/** trim_scale(round(net × rate, max(20, decimals of net))), exactly as Postgres gives it (allocate.ts BASE_AMOUNT). */
export function multiplyRound(net: string, rate: string): string {
  const n = scaled(net);
  const r = scaled(rate);
  const keep = Math.max(BASE_SCALE, n.scale);
  return formatScaled(roundDrop(n.v * r.v, n.scale + r.scale - keep), keep);
}

const ONE = '1';
/** Key `k`'s (recording, product) pair is row `t`'s of al_keys / al_set. */
const pair = (t: string) => `${t}.a_key = coalesce(k.asset_id, '${ZERO_UUID}'::uuid) AND ${t}.p_key = coalesce(k.product_id, '${ZERO_UUID}'::uuid)`;

export class LineMatcher {
  private known = new Map<string, Entry[]>();
  private size = 0;
  /** Keys queued for the next round trip. */
  private pending: string[][] = [];
  /** Keys queued or in the round trip under way (get() never queues one twice). */
  private pendingKeys = new Map<string, string[][]>();
  /** Keys in the round trip under way. */
  private inflight = 0;
  /** Round trips made and their total time (logged by the ingest). */
  readonly stats = { rounds: 0, keys: 0, ms: 0 };

  private constructor(
    private readonly svc: AppServices,
    private readonly tenantId: number,
    readonly base: string,
    private readonly rates: Map<string, string>,
    /**
     * Whether a key's DSP can change its match: only a rule for one DSP reads it. Without one,
     * keys differing only by DSP are one key (measured, 1M lines in 8 stores: 16,000 keys
     * resolved in 6 round trips, 1.3–1.5 s of the ingest's wall time, become 2,000).
     */
    private readonly byDsp: boolean,
    /**
     * The snapshot (pg_snapshot text) read before anything else was: every decision of this
     * ingest saw at least what it saw. A change it does not see left a row in
     * allocation_changes (docs/engine.md, "Decided while stored").
     */
    readonly snapshot: string,
  ) {}

  /**
   * A matcher for the workspace, or null when ingest must leave matching to the allocation step.
   * `fileId`: the file it decides for, which records the snapshot at once (so the allocation of
   * another file keeps the changes this one may have missed: allocation/decided.ts).
   */
  static async open(svc: AppServices, tenantId: number, fileId?: string): Promise<LineMatcher | null> {
    return withTenant(svc.db.app, tenantId, async (trx) => {
      // First: no setting, rule, rate or catalogue row read below is older than this snapshot.
      const { rows: snap } = await trx.raw(`SELECT pg_current_snapshot()::text AS s`);
      const snapshot: string = snap[0].s;
      if (fileId) await updateFile(trx, tenantId, fileId, { ingest_snapshot: snapshot, updated_at: trx.raw('updated_at') });
      const settings = await getSettings(trx, tenantId);
      if (settings.autoCreateCatalogue) return null;
      const { rows: rules } = await trx.raw(
        `SELECT bool_or(kind = 'dsp') AS dsp_rules, bool_or(dsp_norm IS NOT NULL) AS by_dsp FROM matching_rules WHERE tenant_id = ?`,
        [tenantId],
      );
      if (rules[0]?.dsp_rules) return null;
      const { rows } = await trx.raw(`SELECT currency, to_char(month, 'YYYY-MM-DD') AS month, rate::text AS rate FROM fx_rates WHERE tenant_id = ?`, [tenantId]);
      const rates = new Map<string, string>(rows.map((r: { currency: string; month: string; rate: string }) => [`${r.currency.trim()}|${r.month}`, r.rate]));
      return new LineMatcher(svc, tenantId, settings.baseCurrency, rates, rules[0]?.by_dsp === true, snapshot);
    });
  }

  /**
   * The match of key (isrc, upc, track title, artist, release title, DSP; '' for none);
   * undefined = not known yet (queued: call resolve()); null = not remembered (beyond the bounds).
   * Six arguments, no array: called for every line.
   */
  get(isrc: string, upc: string, title: string, artist: string, release: string, dsp: string): LineMatch | null | undefined {
    if (!this.byDsp) dsp = '';
    const f = isrc !== '' ? isrc : '\u0000' + title;
    const bucket = this.known.get(f);
    if (bucket !== undefined)
      for (let i = 0; i < bucket.length; i++) {
        const k = bucket[i]!.k;
        if (k[5] === dsp && k[0] === isrc && k[1] === upc && k[2] === title && k[3] === artist && k[4] === release) return bucket[i]!.m;
      }
    if (this.size + this.inflight + this.pending.length >= MAX_KEYS || (bucket !== undefined && bucket.length >= BUCKET_MAX)) return null;
    let p = this.pendingKeys.get(f);
    if (p === undefined) this.pendingKeys.set(own(f), (p = []));
    const raw = [isrc, upc, title, artist, release, dsp];
    if (!p.some((x) => same(x, raw))) {
      // own copies: a queued key may wait long (see line-copy.ts) and must not keep parser chunks alive
      const k = raw.map(own);
      p.push(k);
      this.pending.push(k);
    }
    return undefined;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Resolve the queued keys with the allocation's SQL (one short read transaction). One round
   * at a time; get() may go on meanwhile (keys it meets that are in this round wait for it,
   * new ones queue for the next).
   */
  async resolve(): Promise<void> {
    const keys = this.pending;
    this.pending = [];
    this.inflight = keys.length;
    const t0 = Date.now();
    const col = (i: number) => keys.map((k) => (k[i]!.includes('\u0000') ? k[i]!.replace(/\u0000/g, '') : k[i]!));
    try {
      const { rows } = await withTenant(this.svc.db.app, this.tenantId, async (trx) => {
        await trx.raw(`DROP TABLE IF EXISTS lm_keys`);
        await trx.raw(
          `CREATE TEMP TABLE lm_keys ON COMMIT DROP AS
           SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS x(kid, isrc, upc, track_title, artist, release_title, dsp)`,
          [keys.map((_, i) => i), col(0), col(1), col(2), col(3), col(4), col(5)],
        );
        const none = { sql: 'false', bindings: [] };
        await resolveMatchKeys(trx, this.tenantId, none, { autoCreate: false, keysHaveId: true, keysFrom: 'SELECT * FROM lm_keys' });
        // The share set of each matched key whose split no line's month, country or sale type can change.
        await prepareSplitKeys(trx, this.tenantId, none, { pairsFromKeys: true, unconditionalOnly: true });
        await writeShareSets(trx, this.tenantId);
        // decided: unmatched, or a pair no line field can change (al_keys holds exactly those pairs).
        return trx.raw(
          `SELECT k.kid, k.asset_id, k.product_id, k.artist_id, ${MATCH_STATUS_SQL} AS status, st.set_id,
                  (k.asset_id IS NULL AND k.product_id IS NULL) OR EXISTS (SELECT 1 FROM al_keys ak WHERE ${pair('ak')}) AS decided
             FROM rm_keys k LEFT JOIN al_set st ON (k.asset_id IS NOT NULL OR k.product_id IS NOT NULL) AND ${pair('st')}`,
        );
      });
      for (const r of rows as { kid: number; asset_id: string | null; product_id: string | null; artist_id: string | null; status: string; set_id: string | null; decided: boolean }[]) {
        const k = keys[r.kid]!;
        const f = first(k);
        let bucket = this.known.get(f);
        if (bucket === undefined) this.known.set(f, (bucket = []));
        if (bucket.length >= BUCKET_MAX || bucket.some((e) => same(e.k, k))) continue;
        bucket.push({ k, m: lineMatch(r.asset_id, r.product_id, r.artist_id, r.status, r.set_id, r.decided) });
        this.size++;
      }
    } finally {
      this.inflight = 0;
      for (const k of keys) {
        const f = first(k);
        const p = this.pendingKeys.get(f);
        const i = p ? p.indexOf(k) : -1;
        if (i >= 0) p!.splice(i, 1);
        if (p && p.length === 0) this.pendingKeys.delete(f);
      }
      this.stats.rounds++;
      this.stats.keys += keys.length;
      this.stats.ms += Date.now() - t0;
    }
  }

  /** [fx_rate, base_amount] when the currency rule is a multiplication known now; null otherwise. */
  convert(currency: string, grossCurrency: string | null, exchangeRate: string | null, saleMonth: string | null, net: string): [string, string] | null {
    if (currency === this.base) return [ONE, net];
    if (grossCurrency === this.base && exchangeRate !== null && exchangeRate[0] !== '-' && /[1-9]/.test(exchangeRate)) return null; // statement rate: a division
    if (saleMonth === null) return null;
    const rate = this.rates.get(`${currency}|${saleMonth}`);
    return rate === undefined ? null : [rate, multiplyRound(net, rate)];
  }
}
