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
 * sale month, computed exactly (scaled BigInt, half away from zero at 12 places, as
 * Postgres' round(net × rate, 12)); a statement rate (a division) or a line without a sale
 * month is left to the allocation step.
 *
 * Not used with autoCreateCatalogue (creating catalogue rows is the allocation step's job) or
 * "store A is DSP B" rules (they change the keys). Whatever is filled here, the allocation
 * step re-checks per key group and rewrites only the lines whose result differs (a catalogue,
 * rule or rate change in between); lines past MAX_KEYS distinct keys are left to it too.
 */
import { withTenant } from '../../db';
import type { AppServices } from '../../services';
import { getSettings } from '../settings/service';
import { resolveMatchKeys, MATCH_STATUS_SQL } from './match';

/** Distinct match keys remembered per file (memory bound: ~300 bytes each). */
export const MAX_KEYS = 100_000;

export interface LineMatch {
  asset: string | null;
  product: string | null;
  artist: string | null;
  status: string;
}

type Trie = Map<string, Trie | LineMatch>;

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

function format12(v: bigint): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(13, '0');
  return `${neg ? '-' : ''}${s.slice(0, -12)}.${s.slice(-12)}`;
}

/** round(round(net, 12) × rate, 12), exactly as numeric(28,12) storage and Postgres' round() give it. */
export function multiplyRound12(net: string, rate: string): string {
  const n = scaled(net);
  const n12 = roundDrop(n.v, n.scale - 12);
  const r = scaled(rate);
  return format12(roundDrop(n12 * r.v, r.scale));
}

export class LineMatcher {
  private trie: Trie = new Map();
  private size = 0;
  private pending: string[][] = [];
  private pendingSet: Trie = new Map();

  private constructor(
    private readonly svc: AppServices,
    private readonly tenantId: number,
    readonly base: string,
    private readonly rates: Map<string, string>,
  ) {}

  /** A matcher for the workspace, or null when ingest must leave matching to the allocation step. */
  static async open(svc: AppServices, tenantId: number): Promise<LineMatcher | null> {
    return withTenant(svc.db.app, tenantId, async (trx) => {
      const settings = await getSettings(trx, tenantId);
      if (settings.autoCreateCatalogue) return null;
      const { rows: rules } = await trx.raw(`SELECT 1 FROM matching_rules WHERE tenant_id = ? AND kind = 'dsp' LIMIT 1`, [tenantId]);
      if (rules.length) return null;
      const { rows } = await trx.raw(`SELECT currency, to_char(month, 'YYYY-MM-DD') AS month, rate::text AS rate FROM fx_rates WHERE tenant_id = ?`, [tenantId]);
      const rates = new Map<string, string>(rows.map((r: { currency: string; month: string; rate: string }) => [`${r.currency.trim()}|${r.month}`, r.rate]));
      return new LineMatcher(svc, tenantId, settings.baseCurrency, rates);
    });
  }

  /** The key's match; undefined = not resolved yet (queued by want()); null = beyond MAX_KEYS. */
  get(k: string[]): LineMatch | null | undefined {
    let node: Trie | LineMatch | undefined = this.trie;
    for (let i = 0; i < 6; i++) {
      node = (node as Trie).get(k[i]!);
      if (node === undefined) return this.size >= MAX_KEYS ? null : undefined;
    }
    return node as LineMatch;
  }

  /** Queue a key get() did not know (deduplicated). */
  want(k: string[]): void {
    let node = this.pendingSet;
    for (let i = 0; i < 5; i++) {
      let next = node.get(k[i]!) as Trie | undefined;
      if (next === undefined) node.set(k[i]!, (next = new Map()));
      node = next;
    }
    if (node.has(k[5]!)) return;
    node.set(k[5]!, { asset: null, product: null, artist: null, status: '' });
    this.pending.push(k);
  }

  /** Resolve the queued keys with the allocation's SQL (one short read transaction). */
  async resolve(): Promise<void> {
    const keys = this.pending.slice(0, Math.max(0, MAX_KEYS - this.size));
    this.pending = [];
    this.pendingSet = new Map();
    if (!keys.length) return;
    const col = (i: number) => keys.map((k) => (k[i]!.includes('\u0000') ? k[i]!.replace(/\u0000/g, '') : k[i]!));
    const { rows } = await withTenant(this.svc.db.app, this.tenantId, async (trx) => {
      await trx.raw(`DROP TABLE IF EXISTS lm_keys`);
      await trx.raw(
        `CREATE TEMP TABLE lm_keys ON COMMIT DROP AS
         SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS x(kid, isrc, upc, track_title, artist, release_title, dsp)`,
        [keys.map((_, i) => i), col(0), col(1), col(2), col(3), col(4), col(5)],
      );
      await resolveMatchKeys(trx, this.tenantId, { sql: 'false', bindings: [] }, { autoCreate: false, keysHaveId: true, keysFrom: 'SELECT * FROM lm_keys' });
      return trx.raw(`SELECT k.kid, k.asset_id, k.product_id, k.artist_id, ${MATCH_STATUS_SQL} AS status FROM rm_keys k`);
    });
    for (const r of rows as { kid: number; asset_id: string | null; product_id: string | null; artist_id: string | null; status: string }[]) {
      const k = keys[r.kid]!;
      let node = this.trie;
      for (let i = 0; i < 5; i++) {
        let next = node.get(k[i]!) as Trie | undefined;
        if (next === undefined) node.set(k[i]!, (next = new Map()));
        node = next;
      }
      if (!node.has(k[5]!)) this.size++;
      node.set(k[5]!, { asset: r.asset_id, product: r.product_id, artist: r.artist_id, status: r.status });
    }
  }

  /** [fx_rate, base_amount] when the currency rule is a multiplication known now; null otherwise. */
  convert(currency: string, grossCurrency: string | null, exchangeRate: string | null, saleMonth: string | null, net: string): [string, string] | null {
    if (currency === this.base) return ['1', net];
    if (grossCurrency === this.base && exchangeRate !== null && exchangeRate[0] !== '-' && /[1-9]/.test(exchangeRate)) return null; // statement rate: a division
    if (saleMonth === null) return null;
    const rate = this.rates.get(`${currency}|${saleMonth}`);
    return rate === undefined ? null : [rate, multiplyRound12(net, rate)];
  }
}
