/**
 * The replica's layout (docs/engine.md, "What the replica holds"): the columns of a workspace's
 * lines and share sets as copied from Postgres, the lines' order, and how DuckDB reads a copy.
 */

/** The replica's columns of a line, with their DuckDB types (docs/engine.md lists why each is exact). */
export const REPLICA_LINE_COLUMNS: readonly (readonly [string, string])[] = [
  ['file_id', 'UUID'],
  ['sale_month', 'DATE'],
  ['accounting_period', 'DATE'],
  ['ap_end', 'DATE'],
  ['share_set_id', 'UUID'],
  ['artist_id', 'UUID'],
  ['product_id', 'UUID'],
  ['asset_id', 'UUID'],
  ['dsp', 'VARCHAR'],
  ['country', 'VARCHAR'],
  ['sale_type', 'VARCHAR'],
  ['aggregator', 'VARCHAR'],
  // base_amount and quantity are unconstrained numerics, held exactly in decimals of at most
  // 18 digits (64-bit: about 8× faster to load than 38-digit ones, and faster to sum): the
  // amount as its part to 8 decimals (`revenue`) plus its remaining decimals × 10^8
  // (`revenue_lo`, 12 decimals). A line whose amount has more than 20 decimals or 10 integer
  // digits, or whose quantity has more than 6 decimals or 12 integer digits, is copied as NULL
  // and its workspace answered by Postgres (never rounded).
  ['revenue', 'DECIMAL(18,8)'],
  ['revenue_lo', 'DECIMAL(18,12)'],
  ['quantity', 'DECIMAL(18,6)'],
  ['streams', 'DECIMAL(18,6)'],
  ['downloads', 'DECIMAL(18,6)'],
  // The scales of the line's amount and quantity as Postgres holds them: a sum's scale in
  // Postgres is the largest of its terms', which the derived fields' divisions depend on.
  ['rs', 'UTINYINT'],
  ['qs', 'UTINYINT'],
];
/**
 * The order lines are written in: each file's lines by country. A country filter (the most
 * asked, and with the most values) then skips the row groups holding other countries'
 * lines whole (DuckDB's zone maps), instead of reading every column of every line. Then by
 * recording, so that a recording's lines (and its product's, artist's and share set's ids,
 * 16 bytes each) are next to each other, which DuckDB stores as runs. The lines come in this
 * order (linesSql sorts them, one file at a time) and are written as they come.
 */
export const REPLICA_LINE_ORDER = 'file_id, country, asset_id';

/** The replica's columns of a share set (immutable rows: copied once). */
export const SHARE_SET_COLUMNS: readonly (readonly [string, string])[] = [
  ['share_set_id', 'UUID'],
  ['tenant_user_id', 'UUID'],
  ['share', 'DECIMAL(9,6)'],
];

/** DuckDB's read of a CSV copy of Postgres rows (`COPY … TO STDOUT WITH (FORMAT csv, NULL '\\N')`) in the columns `cols`. */
export const readCsv = (file: string, cols: readonly (readonly [string, string])[]) =>
  `read_csv('${file.replace(/'/g, "''")}', columns = {${cols.map(([c, t]) => `'${c}': '${t}'`).join(', ')}}, header = false, auto_detect = false, nullstr = '\\N', allow_quoted_nulls = false, quote = '"', escape = '"', delim = ',')`;
