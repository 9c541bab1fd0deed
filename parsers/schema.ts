/**
 * A source pattern is DATA: how to recognise one statement layout and how to map it onto
 * CanonicalLine. Admins post new ones through the API, so everything here is a plain JSON
 * Schema (TypeBox) validated with ajv, compiled once at module load. See parsers/README.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';

const Str = (o: object = {}) => Type.String({ minLength: 1, ...o });

/** Where a canonical field's value comes from, and how to clean it. */
export const FieldMappingSchema = Type.Object(
  {
    /** Source column name(s); the first one present in the header wins. For `ddex-dsr`: 'RE.Title', 'SU.Usages'… */
    from: Type.Optional(Type.Union([Str(), Type.Array(Str(), { minItems: 1 })])),
    /** A constant value (used when `from` is absent or no listed column is present). */
    const: Type.Optional(Type.String()),
    /** Key of the key/value preamble (Apple Music `Currency`, `Start Date`…). */
    preamble: Type.Optional(Str()),
    /** Regex on the file name; capture group 1 (or named group `v`) is the value. */
    fileName: Type.Optional(Str()),
    /** Value used when the source cell is empty. */
    default: Type.Optional(Type.String()),
    /** Value map applied before normalising; keys compared case-insensitively, trimmed. */
    map: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** Dates: day before month in numeric dates (03/04/2023 = 3 April). Overrides format.dayFirst. */
    dayFirst: Type.Optional(Type.Boolean()),
    /** Amounts/quantities: force the value negative when `column` holds one of `values` (Apple `Sales or Return` = R). */
    negativeWhen: Type.Optional(
      Type.Object(
        { column: Str(), values: Type.Array(Type.String(), { minItems: 1 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const F = Type.Optional(FieldMappingSchema);

/** Per canonical field. `net` and `currency` are required; the rest optional. */
export const ColumnsSchema = Type.Object(
  {
    saleMonth: F,
    salePeriodStart: F,
    salePeriodEnd: F,
    accountingPeriod: F,
    dsp: F,
    country: F,
    isrc: F,
    upc: F,
    trackTitle: F,
    artist: F,
    releaseTitle: F,
    label: F,
    saleType: F,
    quantity: F,
    gross: F,
    grossCurrency: F,
    net: FieldMappingSchema,
    currency: FieldMappingSchema,
    exchangeRate: F,
  },
  { additionalProperties: false },
);

/** A row rule: skip it, or stop reading (everything after is skipped), optionally reading a control row count. */
export const RowRuleSchema = Type.Object(
  {
    /** Test this 0-based cell… */
    cell: Type.Optional(Type.Integer({ minimum: 0 })),
    /** …or this header column. Default: cell 0. */
    column: Type.Optional(Str()),
    /** Matches when the (trimmed) cell equals one of these, case-insensitively. */
    equals: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
    /** Matches when the cell matches this regex (case-insensitive). */
    matches: Type.Optional(Str()),
    /** Matches when the row has fewer non-empty cells than this (summary/total rows). */
    maxFilledCells: Type.Optional(Type.Integer({ minimum: 0 })),
    /** 'skip' the row (default) or 'stop' reading data rows (trailing summary blocks). */
    action: Type.Optional(Type.Union([Type.Literal('skip'), Type.Literal('stop')])),
    /** 0-based cell of this row holding the file's own count of data rows (control total). */
    rowCountCell: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const DsrRecordSchema = Type.Object(
  {
    /** Record type prefix as it appears in cell 0, e.g. 'SU02', 'RE01', 'AS0'. Matched with startsWith. */
    prefix: Str(),
    role: Type.Union([
      Type.Literal('head'),
      Type.Literal('summary'),
      Type.Literal('release'),
      Type.Literal('resource'),
      Type.Literal('sale'),
      Type.Literal('foot'),
    ]),
    /** Alias used in `columns.*.from` ('HEAD', 'SY', 'RE', 'AS', 'SU', 'FOOT'). */
    alias: Str(),
    /** Field name → 0-based cell index (cell 0 is the record type). */
    fields: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const SourcePatternSchema = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{1,63}$' }),
    name: Str(),
    aggregator: Str(),
    /** Constant DSP when the whole file comes from one store (Apple, YouTube). */
    dsp: Type.Optional(Str()),
    description: Type.Optional(Type.String()),
    layout: Type.Union([Type.Literal('table'), Type.Literal('ddex-dsr')]),
    detect: Type.Object(
      {
        /** Case-insensitive regex on the file name (gz/zip suffixes included as uploaded). */
        fileName: Type.Optional(Str()),
        /** Required header names (case/space/accent-insensitive). For ddex-dsr: record types expected (HEAD, FOOT…). */
        headers: Type.Array(Str(), { minItems: 1 }),
        /** Alternative complete signatures (e.g. French and English headers). */
        headerVariants: Type.Optional(Type.Array(Type.Array(Str(), { minItems: 1 }), { minItems: 1 })),
        /** Header names that must NOT be present (tells layout versions apart). */
        absentHeaders: Type.Optional(Type.Array(Str(), { minItems: 1 })),
      },
      { additionalProperties: false },
    ),
    format: Type.Object(
      {
        delimiter: Type.Union([Type.Literal('auto'), Type.Literal(','), Type.Literal('\t'), Type.Literal(';'), Type.Literal('|')]),
        encoding: Type.Union([
          Type.Literal('auto'),
          Type.Literal('utf-8'),
          Type.Literal('utf-16le'),
          Type.Literal('latin1'),
          Type.Literal('cp932'),
        ]),
        /** Exact number of lines before the header. Absent: the header is searched in the first 50 lines. */
        linesBeforeHeader: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
        /** Lines before the header are `key<delimiter>value` (or `key: value`) pairs. */
        preamble: Type.Optional(Type.Literal('keyValue')),
        /** Number style: '.' (default), ',' (decimal comma) or 'auto'. */
        decimal: Type.Optional(Type.Union([Type.Literal('.'), Type.Literal(','), Type.Literal('auto')])),
        /** Numeric dates are day-first (31/01/2024). Default false (US month-first). */
        dayFirst: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    columns: ColumnsSchema,
    /** Summary/total/footer rows to skip or stop at. Blank rows are always skipped silently. */
    rows: Type.Optional(Type.Array(RowRuleSchema)),
    /** Statement period sources (besides per-line dates). */
    period: Type.Optional(
      Type.Object(
        {
          /** Regex on the file name with named groups `start` and optional `end` (any date form normDate reads). */
          fileName: Type.Optional(Str()),
          preambleStart: Type.Optional(Str()),
          preambleEnd: Type.Optional(Str()),
        },
        { additionalProperties: false },
      ),
    ),
    /** Only for layout 'ddex-dsr': record layouts. */
    dsr: Type.Optional(
      Type.Object(
        {
          records: Type.Array(DsrRecordSchema, { minItems: 1 }),
          /** FOOT field holding the number of lines in the file (control total). */
          footLinesField: Type.Optional(Str()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'SourcePattern', additionalProperties: false },
);

export type SourcePattern = Static<typeof SourcePatternSchema>;
export type FieldMapping = Static<typeof FieldMappingSchema>;
export type RowRule = Static<typeof RowRuleSchema>;
export type CanonicalField = keyof Static<typeof ColumnsSchema>;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateFn = ajv.compile<SourcePattern>(SourcePatternSchema);

/** Validates a pattern object (schema + semantic checks: regexes compile, mappings have a source). */
export function validatePattern(obj: unknown): { ok: true; pattern: SourcePattern } | { ok: false; errors: string[] } {
  if (!validateFn(obj)) {
    return {
      ok: false,
      errors: (validateFn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`),
    };
  }
  const p = obj as SourcePattern;
  const errors: string[] = [];
  const re = (where: string, src: string | undefined) => {
    if (src === undefined) return;
    try {
      new RegExp(src, 'i');
    } catch (e) {
      errors.push(`${where} is not a valid regular expression: ${(e as Error).message}`);
    }
  };
  re('/detect/fileName', p.detect.fileName);
  re('/period/fileName', p.period?.fileName);
  for (const [field, m] of Object.entries(p.columns)) {
    if (!m) continue;
    if (m.from === undefined && m.const === undefined && m.preamble === undefined && m.fileName === undefined)
      errors.push(`/columns/${field} needs one of from, const, preamble, fileName`);
    re(`/columns/${field}/fileName`, m.fileName);
  }
  (p.rows ?? []).forEach((r, i) => {
    re(`/rows/${i}/matches`, r.matches);
    if (r.equals === undefined && r.matches === undefined && r.maxFilledCells === undefined)
      errors.push(`/rows/${i} needs one of equals, matches, maxFilledCells`);
  });
  if (p.layout === 'ddex-dsr' && !p.dsr) errors.push('/dsr is required when layout is ddex-dsr');
  return errors.length ? { ok: false, errors } : { ok: true, pattern: p };
}
