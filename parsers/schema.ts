/**
 * A source pattern is DATA: how to recognise one statement layout and how to map it onto
 * CanonicalLine. Admins post new ones through the API, so everything here is a plain JSON
 * Schema (TypeBox) validated with ajv, compiled once at module load. See parsers/README.md.
 */
import { Type, type Static, type TSchema, type TOptional } from '@sinclair/typebox';
import { Ajv } from 'ajv';

const Str = (o: object = {}) => Type.String({ minLength: 1, ...o });
/** A documented field: a description and an example for the schema served at GET /sources/pattern-schema and /docs. */
const doc = (description: string, example: unknown) => ({ description, examples: [example] });

/** A column: its header name, or its 0-based position (files without a header row). */
export const ColumnRefSchema = Type.Union([Str(), Type.Integer({ minimum: 0 })], doc('A column: header name, or 0-based position', 'Royalty'));

/** Where a canonical field's value comes from, and how to clean it. */
export const FieldMappingSchema = Type.Object(
  {
    /** Source column name(s); the first one present in the header wins. For `ddex-dsr`: 'RE.Title', 'SU.Usages'… */
    from: Type.Optional(Type.Union([Str(), Type.Array(Str(), { minItems: 1 })], doc('Header name(s); the first present in the file wins. For ddex-dsr: ALIAS.Field', ['Net Revenue', 'Earnings (USD)']))),
    /** 0-based cell position: the column by place instead of by name (header-less files; cells of one row kind). */
    column: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, ...doc('0-based position of the cell (used when the file has no header row, or instead of a name)', 4) })),
    /** A constant value (used when `from` is absent or no listed column is present). */
    const: Type.Optional(Type.String(doc('A constant value for every line (used when no column gives one)', 'USD'))),
    /** Key of the key/value preamble (Apple Music `Currency`, `Start Date`…). */
    preamble: Type.Optional(Str(doc('Key of a `key,value` line above the header (format.preamble keyValue)', 'Currency'))),
    /** Regex on the file name; capture group 1 (or named group `v`) is the value. */
    fileName: Type.Optional(Str(doc('Regex on the file name; capture group 1 (or the group named v) is the value', '_(?<v>[A-Z]{3})\\.csv$'))),
    /** Regex on the cell: capture group 1 (or named group `v`) is the value; no match → empty. */
    extract: Type.Optional(Str(doc('Regex applied to the cell: group 1 (or the group named v) is the value; no match reads as empty', '^(?<v>[A-Z]{2}[A-Z0-9]{3}\\d{7})'))),
    /** Amount computed from columns, exactly (decimal arithmetic): sum, difference (first minus the rest) or product. */
    compute: Type.Optional(
      Type.Object(
        {
          op: Type.Union([Type.Literal('sum'), Type.Literal('difference'), Type.Literal('product'), Type.Literal('join')], doc('sum: a+b+…; difference: a−b−…; product: a×b×…; join: the non-empty cells as text separated by "/" (extra fields such as writers spread over IP1…IP4)', 'difference')),
          of: Type.Array(ColumnRefSchema, { minItems: 2, maxItems: 8, ...doc('The columns (names or positions), in order', ['Royalty', 'Withholding']) }),
        },
        { additionalProperties: false, ...doc('An amount computed from columns with exact decimal arithmetic', { op: 'product', of: ['Amount', 'Split'] }) },
      ),
    ),
    /** The column may be missing from some files of this layout: validation does not report it. */
    optional: Type.Optional(Type.Boolean(doc('The column may be absent from some files; without this a mapped column missing from the header is reported by validation', true))),
    /** Value used when the source cell is empty. */
    default: Type.Optional(Type.String(doc('Value used when the cell is empty', '0'))),
    /** Value map applied before normalising; keys compared case-insensitively, trimmed. */
    map: Type.Optional(Type.Record(Type.String(), Type.String(), doc('Value map applied before normalising (keys trimmed, case-insensitive)', { S: 'stream', D: 'download' }))),
    /** Dates: day before month in numeric dates (03/04/2023 = 3 April). Overrides format.dayFirst. */
    dayFirst: Type.Optional(Type.Boolean(doc('Numeric dates are day-first (03/04/2023 = 3 April); overrides format.dayFirst', true))),
    /** Amounts/quantities: force the value negative when `column` holds one of `values` (Apple `Sales or Return` = R). */
    negativeWhen: Type.Optional(
      Type.Object(
        { column: Str(), values: Type.Array(Type.String(), { minItems: 1 }) },
        { additionalProperties: false, ...doc('Force the amount negative when this column holds one of the values', { column: 'Sales or Return', values: ['R'] }) },
      ),
    ),
  },
  { additionalProperties: false, ...doc('Where a line field comes from: a column (from / column), a constant, the preamble or the file name, with optional cleaning', { from: 'Net Revenue' }) },
);

const F = (description: string, example: unknown) => Type.Optional({ ...FieldMappingSchema, ...doc(description, example) });

const COLUMN_DOCS: Record<string, [string, unknown]> = {
  saleMonth: ['Sale month or period: dates, months, quarters (2024Q1, 1Q2024, 20241, Q1 2024) and half-years (2024-H1) are read natively', { from: 'Period' }],
  salePeriodStart: ['First day of the sale period', { from: 'Start Date' }],
  salePeriodEnd: ['Last day of the sale period', { from: 'End Date' }],
  accountingPeriod: ['Accounting (reporting) month when the source reports one apart from the sale month', { from: 'Reporting Month' }],
  dsp: ['Store / DSP name', { from: 'Store' }],
  country: ['Country: ISO codes or names in seven languages', { from: 'Territory' }],
  isrc: ['ISRC (dashes and spaces removed)', { from: 'ISRC' }],
  upc: ['UPC / EAN (digits, leading zeros kept)', { from: 'UPC' }],
  trackTitle: ['Track title', { from: 'Title' }],
  artist: ['Artist', { from: 'Artist' }],
  releaseTitle: ['Release (album) title', { from: 'Release' }],
  label: ['Label', { from: 'Label' }],
  saleType: ['Sale type (stream, download, ugc, physical, return…)', { from: 'Sale Type', map: { S: 'stream' } }],
  quantity: ['Units / streams', { from: 'Quantity' }],
  gross: ['Gross amount before the source\'s fees', { from: 'Gross' }],
  grossCurrency: ['Currency of the gross amount', { from: 'Gross Currency' }],
  net: ['What the source owes for the line (required)', { compute: { op: 'difference', of: ['Royalty', 'Withholding'] } }],
  currency: ['ISO 4217 currency of net (required)', { const: 'USD' }],
  exchangeRate: ['The statement\'s own rate: 1 gross currency = rate currency', { from: 'FX Rate' }],
};
const cols: Record<string, TSchema> = {};
for (const [k, [d, e]] of Object.entries(COLUMN_DOCS)) cols[k] = k === 'net' || k === 'currency' ? { ...FieldMappingSchema, ...doc(d, e) } : F(d, e);

/** Per canonical field. `net` and `currency` are required; the rest optional. */
export const ColumnsSchema = Type.Object(cols as {
  saleMonth: TOptional<typeof FieldMappingSchema>; salePeriodStart: TOptional<typeof FieldMappingSchema>; salePeriodEnd: TOptional<typeof FieldMappingSchema>;
  accountingPeriod: TOptional<typeof FieldMappingSchema>; dsp: TOptional<typeof FieldMappingSchema>; country: TOptional<typeof FieldMappingSchema>;
  isrc: TOptional<typeof FieldMappingSchema>; upc: TOptional<typeof FieldMappingSchema>; trackTitle: TOptional<typeof FieldMappingSchema>;
  artist: TOptional<typeof FieldMappingSchema>; releaseTitle: TOptional<typeof FieldMappingSchema>; label: TOptional<typeof FieldMappingSchema>;
  saleType: TOptional<typeof FieldMappingSchema>; quantity: TOptional<typeof FieldMappingSchema>; gross: TOptional<typeof FieldMappingSchema>;
  grossCurrency: TOptional<typeof FieldMappingSchema>; net: typeof FieldMappingSchema; currency: typeof FieldMappingSchema;
  exchangeRate: TOptional<typeof FieldMappingSchema>;
}, { additionalProperties: false, ...doc('How each line field is read; net and currency are required', { net: { from: 'Net' }, currency: { const: 'EUR' } }) });

/** Partial columns of one row kind: merged over the pattern's `columns`. */
const KindColumnsSchema = Type.Record(Type.String(), FieldMappingSchema, doc('Line fields of this row kind, merged over the pattern\'s columns', { net: { column: 6 }, isrc: { column: 3 } }));

/** A row rule: skip it, stop reading, or read it as the file's control totals. */
export const RowRuleSchema = Type.Object(
  {
    /** Test this 0-based cell… */
    cell: Type.Optional(Type.Integer({ minimum: 0, ...doc('Test this 0-based cell (default 0)', 0) })),
    /** …or this header column. Default: cell 0. */
    column: Type.Optional(Str(doc('…or this header column', 'Artist'))),
    /** Matches when the (trimmed) cell equals one of these, case-insensitively. */
    equals: Type.Optional(Type.Array(Type.String(), { minItems: 1, ...doc('Matches when the trimmed cell equals one of these (case-insensitive)', ['Total', 'Grand Total']) })),
    /** Matches when the cell matches this regex (case-insensitive). */
    matches: Type.Optional(Str(doc('Matches when the cell matches this regex (case-insensitive)', '^total'))),
    /** Matches when the row has fewer non-empty cells than this (summary/total rows). */
    maxFilledCells: Type.Optional(Type.Integer({ minimum: 0, ...doc('Matches when the row has at most this many non-empty cells', 2) })),
    /** 'skip' the row (default), 'stop' reading data rows (trailing summary blocks), or 'total': the file's control totals. */
    action: Type.Optional(Type.Union([Type.Literal('skip'), Type.Literal('stop'), Type.Literal('total'), Type.Literal('deduction'), Type.Literal('expense')], doc('skip (default; count and amount reported), stop reading, total: the row holds the file\'s control total (read with the net and currency mappings, or amountCell), deduction: a cost, recharge or fee row, never a sale: counted with the amount it takes off (positive) per currency, or expense: such a row recorded as an expense of the workspace\'s ledger for the payees of its recording', 'skip'))),
    /** 0-based cell of this row holding the file's own count of data rows (control total). */
    rowCountCell: Type.Optional(Type.Integer({ minimum: 0, ...doc('0-based cell holding the file\'s own count of data rows', 2) })),
    /** 0-based cell of a total row holding the control amount (default: the pattern's net mapping). */
    amountCell: Type.Optional(Type.Integer({ minimum: 0, ...doc('0-based cell of a total row holding the control amount', 5) })),
  },
  { additionalProperties: false, ...doc('A row rule', { matches: '^total', action: 'total' }) },
);

/** Several row kinds in one file, chosen by one cell's value. */
export const RowKindsSchema = Type.Object(
  {
    cell: Type.Optional(Type.Integer({ minimum: 0, ...doc('0-based cell holding the row kind (default 0)', 0) })),
    column: Type.Optional(Str(doc('…or the header column holding it', 'Record Type'))),
    /** A kind matches on its first `values` entry equal to the cell; `match` allows several cells (`['S','M']`). */
    kinds: Type.Array(
      Type.Object(
        {
          name: Type.Optional(Str(doc('A name for reports', 'mechanical sale'))),
          values: Type.Array(Type.String(), { minItems: 1, ...doc('Values of the kind cell for this kind (trimmed, case-insensitive)', ['S']) }),
          /** Further cells that must hold given values: { "1": ["M"] }. */
          where: Type.Optional(Type.Record(Type.String({ pattern: '^\\d+$' }), Type.Array(Type.String(), { minItems: 1 }), doc('Further 0-based cells and the values they must hold', { 1: ['M'] }))),
          use: Type.Union([Type.Literal('data'), Type.Literal('skip'), Type.Literal('total'), Type.Literal('deduction'), Type.Literal('expense')], doc('data: a statement line; skip: counted and reported; total: control totals; deduction: a cost, recharge or fee (reported, never a sale); expense: such a row recorded as an expense of the workspace\'s ledger', 'data')),
          columns: Type.Optional(KindColumnsSchema),
          extra: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,39}$' }), FieldMappingSchema, { maxProperties: 20, ...doc('Extra fields of this row kind, merged over the pattern\'s extra', { iswc: { column: 7 } }) })),
          rowCountCell: Type.Optional(Type.Integer({ minimum: 0, ...doc('On a total row: the cell holding the number of data rows', 1) })),
        },
        { additionalProperties: false, ...doc('One row kind', { values: ['S'], where: { 1: ['M'] }, use: 'data', columns: { net: { column: 6 } } }) },
      ),
      { minItems: 1 },
    ),
    /** Rows of no listed kind: an error line (default) or skipped. */
    other: Type.Optional(Type.Union([Type.Literal('error'), Type.Literal('skip')], doc('Rows of no listed kind: an error line (default) or skipped', 'error'))),
  },
  { additionalProperties: false, ...doc('Several row kinds in one file, each with its own mapping, chosen by a cell\'s value', { cell: 0, kinds: [{ values: ['T'], use: 'total' }, { values: ['S'], use: 'data' }] }) },
);

export const DsrRecordSchema = Type.Object(
  {
    /** Record type prefix as it appears in cell 0, e.g. 'SU02', 'RE01', 'AS0'. Matched with startsWith. */
    prefix: Str(doc('Record type prefix in cell 0 (startsWith)', 'SU02')),
    role: Type.Union([
      Type.Literal('head'),
      Type.Literal('summary'),
      Type.Literal('release'),
      Type.Literal('resource'),
      Type.Literal('sale'),
      Type.Literal('foot'),
    ], doc('What the record is', 'sale')),
    /** Alias used in `columns.*.from` ('HEAD', 'SY', 'RE', 'AS', 'SU', 'FOOT'). */
    alias: Str(doc('Alias used in columns.*.from', 'SU')),
    /** Field name → 0-based cell index (cell 0 is the record type). */
    fields: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), doc('Field name → 0-based cell', { SummaryRecordId: 2, Usages: 10 })),
  },
  { additionalProperties: false, ...doc('A DDEX DSR record layout', { prefix: 'SU02', role: 'sale', alias: 'SU', fields: { SummaryRecordId: 2 } }) },
);

export const SourcePatternSchema = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{1,63}$', ...doc('Unique key (lower case, digits, . _ -)', 'acme-distribution') }),
    name: Str(doc('Display name', 'Acme Distribution')),
    aggregator: Str(doc('The distributor / society that reports the lines', 'Acme')),
    /** Constant DSP when the whole file comes from one store (Apple, YouTube). */
    dsp: Type.Optional(Str(doc('Constant DSP when the whole file comes from one store', 'YouTube'))),
    description: Type.Optional(Type.String(doc('Free text', 'Monthly sales report, CSV'))),
    /** Whose income the lines are: recording (default; paid by recording splits) or publishing (society and mechanical statements; matched to works and paid to writers and publishers). */
    income: Type.Optional(Type.Union([Type.Literal('recording'), Type.Literal('publishing')], doc('recording (default): the lines pay recording splits; publishing: society / mechanical income, matched to works (extra iswc, workTitle, writers, rightType) and paid to writers and publishers, never to recording splits', 'publishing'))),
    layout: Type.Union([Type.Literal('table'), Type.Literal('ddex-dsr')], doc('table: CSV/TSV/workbook rows; ddex-dsr: DDEX DSR flat file', 'table')),
    detect: Type.Object(
      {
        /** Case-insensitive regex on the file name (gz/zip suffixes included as uploaded). */
        fileName: Type.Optional(Str(doc('Case-insensitive regex on the file name', '^acme_\\d{6}\\.csv$'))),
        /** Required header names (case/space/accent-insensitive). For ddex-dsr: record types expected (HEAD, FOOT…). Header-less files: values of the kind cell. */
        headers: Type.Array(Str(), { minItems: 1, ...doc('Header names every file has (case/space/accent-insensitive). ddex-dsr: record types. Header-less files: the row kinds\' values', ['ISRC', 'Net Revenue']) }),
        /** Alternative complete signatures (e.g. French and English headers). */
        headerVariants: Type.Optional(Type.Array(Type.Array(Str(), { minItems: 1 }), { minItems: 1, ...doc('Alternative complete signatures', [['ISRC', 'Revenu net']]) })),
        /** Header names that must NOT be present (tells layout versions apart). */
        absentHeaders: Type.Optional(Type.Array(Str(), { minItems: 1, ...doc('Header names that must not be present (layout versions)', ['Team Percentage']) })),
      },
      { additionalProperties: false, ...doc('How files of this layout are recognised', { headers: ['ISRC', 'Net Revenue'] }) },
    ),
    format: Type.Object(
      {
        delimiter: Type.Union([Type.Literal('auto'), Type.Literal(','), Type.Literal('\t'), Type.Literal(';'), Type.Literal('|')], doc('Cell delimiter (auto: sniffed)', ',')),
        encoding: Type.Union([
          Type.Literal('auto'),
          Type.Literal('utf-8'),
          Type.Literal('utf-16le'),
          Type.Literal('latin1'),
          Type.Literal('windows-1252'),
          Type.Literal('windows-1250'),
          Type.Literal('windows-1251'),
          Type.Literal('iso-8859-15'),
          Type.Literal('cp932'),
        ], doc('Text encoding (auto: BOM / UTF-16 / UTF-8 / windows-1252 or windows-1251 sniffed; latin1 is read as windows-1252)', 'auto')),
        /** 'row' (default): a header row names the columns; 'none': columns by position only. */
        header: Type.Optional(Type.Union([Type.Literal('row'), Type.Literal('none')], doc('row (default): a header row names the columns; none: no header, columns by position', 'none'))),
        /** Exact number of lines before the header. Absent: the header is searched in the first 50 lines. */
        linesBeforeHeader: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, ...doc('Exact number of lines before the header (or, without a header, before the data)', 0) })),
        /** Lines before the header are `key<delimiter>value` (or `key: value`) pairs. */
        preamble: Type.Optional(Type.Literal('keyValue', doc('Lines above the header are key,value pairs', 'keyValue'))),
        /** Number style: '.' (default), ',' (decimal comma) or 'auto'. */
        decimal: Type.Optional(Type.Union([Type.Literal('.'), Type.Literal(','), Type.Literal('auto')], doc('Decimal separator', ','))),
        /** Numeric dates are day-first (31/01/2024). Default false (US month-first). */
        dayFirst: Type.Optional(Type.Boolean(doc('Numeric dates are day-first (31/01/2024)', true))),
        /** The month (1–12) the source's fiscal year starts in: places `FY24 P03`, `FY2024 Q1` and period codes (`P03 24`). Default 1. */
        fiscalYearStart: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, ...doc('Month (1–12) the fiscal year starts in; fiscal codes (FY24 P03, FY2024 Q1) and period codes (P03 24) count from it', 4) })),
        /** Which calendar year names a fiscal year: `end` (default; FY2024 from April = Apr 2023 – Mar 2024) or `start`. */
        fiscalYearNamedBy: Type.Optional(Type.Union([Type.Literal('start'), Type.Literal('end')], doc('end (default): FY2024 is the fiscal year ending in 2024; start: the one starting in 2024', 'end'))),
      },
      { additionalProperties: false, ...doc('How the text is cut into rows and cells', { delimiter: ',', encoding: 'auto' }) },
    ),
    columns: ColumnsSchema,
    /** Summary/total/footer rows to skip or stop at. Blank rows are always skipped silently. */
    rows: Type.Optional(Type.Array(RowRuleSchema, doc('Rows to skip (reported with count and amount), stop at, or read as control totals', [{ matches: '^total', action: 'total' }]))),
    rowKinds: Type.Optional(RowKindsSchema),
    /** Extra fields kept per line as text (ISWC, writers, song codes…). */
    extra: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,39}$' }), FieldMappingSchema, { maxProperties: 20, ...doc('Extra fields kept per line as text (ISWC, writers, song codes…)', { iswc: { from: 'ISWC' }, writers: { from: 'Writers' } }) })),
    /** Statement period sources (besides per-line dates). */
    period: Type.Optional(
      Type.Object(
        {
          /** Regex on the file name with named groups `start` and optional `end` (any date form normDate reads). */
          fileName: Type.Optional(Str(doc('Regex on the file name with named groups start and optional end', '_(?<start>\\d{4}Q[1-4])_'))),
          preambleStart: Type.Optional(Str(doc('Preamble key of the period start', 'Start Date'))),
          preambleEnd: Type.Optional(Str(doc('Preamble key of the period end', 'End Date'))),
        },
        { additionalProperties: false, ...doc('Statement period besides per-line dates', { fileName: '_(?<start>\\d{6})\\.csv$' }) },
      ),
    ),
    /** Only for layout 'ddex-dsr': record layouts. */
    dsr: Type.Optional(
      Type.Object(
        {
          /** A sender's own record layouts, when it deviates from the published ones (which are built in). */
          records: Type.Optional(Type.Array(DsrRecordSchema, { minItems: 1 })),
          /** FOOT field holding the number of lines in the file (control total). */
          footLinesField: Type.Optional(Str(doc('FOOT field holding the number of lines in the file', 'NumberOfLinesInFile'))),
        },
        { additionalProperties: false, ...doc('DDEX DSR options (layout ddex-dsr only); records are read by the published DSR layouts unless records overrides one', {}) },
      ),
    ),
  },
  { $id: 'SourcePattern', additionalProperties: false, ...doc('A source pattern: how to recognise one statement layout and read it into lines', {
    key: 'acme-distribution', name: 'Acme Distribution', aggregator: 'Acme', layout: 'table',
    detect: { headers: ['ISRC', 'Net'] }, format: { delimiter: ',', encoding: 'auto' },
    columns: { isrc: { from: 'ISRC' }, saleMonth: { from: 'Period' }, net: { from: 'Net' }, currency: { const: 'USD' } },
  }) },
);

export type SourcePattern = Static<typeof SourcePatternSchema>;
export type FieldMapping = Static<typeof FieldMappingSchema>;
export type RowRule = Static<typeof RowRuleSchema>;
export type RowKinds = Static<typeof RowKindsSchema>;
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
  const noHeader = p.format.header === 'none';
  const checkMapping = (where: string, m: FieldMapping, required: boolean) => {
    if (required && m.from === undefined && m.column === undefined && m.const === undefined && m.preamble === undefined && m.fileName === undefined && m.compute === undefined)
      errors.push(`${where} needs one of from, column, compute, const, preamble, fileName`);
    re(`${where}/fileName`, m.fileName);
    re(`${where}/extract`, m.extract);
    if (noHeader && m.from !== undefined) errors.push(`${where}/from names a header column but format.header is "none": use column (0-based position)`);
    if (noHeader && m.compute?.of.some((c) => typeof c === 'string')) errors.push(`${where}/compute/of names header columns but format.header is "none": use positions`);
    if (m.compute && m.from !== undefined) errors.push(`${where} has both from and compute: keep one`);
  };
  for (const [field, m] of Object.entries(p.columns)) if (m) checkMapping(`/columns/${field}`, m, true);
  for (const [field, m] of Object.entries(p.extra ?? {})) checkMapping(`/extra/${field}`, m, true);
  (p.rows ?? []).forEach((r, i) => {
    re(`/rows/${i}/matches`, r.matches);
    if (r.equals === undefined && r.matches === undefined && r.maxFilledCells === undefined)
      errors.push(`/rows/${i} needs one of equals, matches, maxFilledCells`);
    if (noHeader && r.column !== undefined) errors.push(`/rows/${i}/column names a header column but format.header is "none": use cell`);
  });
  if (p.rowKinds) {
    if (noHeader && p.rowKinds.column !== undefined) errors.push('/rowKinds/column names a header column but format.header is "none": use cell');
    if (!p.rowKinds.kinds.some((k) => k.use === 'data')) errors.push('/rowKinds/kinds needs at least one kind with use "data"');
    p.rowKinds.kinds.forEach((k, i) => {
      for (const [field, m] of Object.entries(k.columns ?? {})) {
        if (!(field in ColumnsSchema.properties)) errors.push(`/rowKinds/kinds/${i}/columns/${field} is not a line field (one of ${Object.keys(ColumnsSchema.properties).join(', ')})`);
        else checkMapping(`/rowKinds/kinds/${i}/columns/${field}`, m, true);
      }
      for (const [field, m] of Object.entries(k.extra ?? {})) checkMapping(`/rowKinds/kinds/${i}/extra/${field}`, m, true);
    });
  }
  if (p.layout === 'ddex-dsr' && !p.dsr) errors.push('/dsr is required when layout is ddex-dsr');
  return errors.length ? { ok: false, errors } : { ok: true, pattern: p };
}
