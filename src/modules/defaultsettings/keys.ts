/**
 * What a default setting may hold. Categories `content` and `ddex` are read by Rondo (new
 * catalogue items, ERN generation), so only their known keys are accepted and each value is
 * checked; `business` and `validation` also take a workspace's own keys (any JSON value) for
 * its own tools, next to the known ones.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { compile, formatAjvErrors } from '../../http/schema';
import { ValidationError } from '../../lib/errors';
import { DateIn } from '../../http/limits';

export const CATEGORIES = ['content', 'business', 'ddex', 'validation'] as const;
export type Category = (typeof CATEGORIES)[number];
export const ENTITY_TYPES = ['user', 'artist', 'label', 'catalog', 'tenant'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface SettingInput {
  category: Category;
  key: string;
  value: unknown;
}

/** DDEX allowed values (ERN 4.3 AVS) Rondo offers; the tests check them against the published XSD. */
export const COMMERCIAL_MODELS = ['AdvertisementSupportedModel', 'DeviceFeeModel', 'FreeOfChargeModel', 'PayAsYouGoModel', 'PerformanceRoyaltiesModel', 'RightsClaimModel', 'SubscriptionModel'] as const;
export const USE_TYPES = [
  'ConditionalDownload', 'ContentInfluencedStream', 'Display', 'Download', 'KioskDownload', 'NonInteractiveStream', 'OnDemandStream',
  'PermanentDownload', 'Playback', 'Stream', 'TetheredDownload', 'TimeInfluencedStream', 'UseAsRingbackTone', 'UseAsRingtone', 'Webcast',
] as const;
export const PARENTAL_WARNINGS = ['Explicit', 'ExplicitContentEdited', 'NoAdviceAvailable', 'NotExplicit', 'Unknown'] as const;

// Region codes ICU knows that are not current territories (historical, groupings, reserved).
const NOT_TERRITORIES = new Set([
  'AC', 'AN', 'BU', 'CP', 'CQ', 'CS', 'DD', 'DG', 'DY', 'EA', 'EU', 'EZ', 'FX', 'HV', 'IC', 'NH', 'NT', 'QO', 'QU', 'RH', 'SU', 'TA', 'TP', 'UK', 'UN',
  'VD', 'XA', 'XB', 'YD', 'YU', 'ZR', 'ZZ',
]);
/** ISO 3166-1 alpha-2 codes of current territories, as far as this runtime's ICU knows them. */
export const TERRITORY_CODES: ReadonlySet<string> = (() => {
  const dn = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  const out = new Set<string>();
  const L = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of L) for (const b of L) {
    const c = a + b;
    if (!NOT_TERRITORIES.has(c) && dn.of(c) !== c) out.add(c);
  }
  return out;
})();

const lit = <T extends readonly string[]>(vals: T) => Type.Union(vals.map((v) => Type.Literal(v)));
const Text = (max = 200) => Type.String({ minLength: 1, maxLength: max });
const IsoDate = DateIn();
const Dpid = Type.String({ pattern: '^PADPIDA[a-zA-Z0-9]+$', maxLength: 40 });

export interface KeyDef {
  schema: TSchema;
  description: string;
  /** Built-in value used when no level of the chain sets the key (level `default`). */
  default?: unknown;
  /** Checks a schema cannot express; returns problems. */
  check?(v: unknown): string[];
}

function territories(v: unknown): string[] {
  const list = v as string[];
  const bad = list.filter((c) => c !== 'Worldwide' && !TERRITORY_CODES.has(c));
  const out = bad.map((c) => `"${c}" is not a territory code (ISO 3166-1 alpha-2, upper case, or Worldwide)`);
  if (list.includes('Worldwide') && list.length > 1) out.push('Worldwide cannot be combined with other territories');
  if (new Set(list).size !== list.length) out.push('territories must not repeat');
  return out;
}

export const KEYS: Record<Category, Record<string, KeyDef>> = {
  content: {
    genre: { schema: Text(100), description: 'Main genre of new assets, products and releases' },
    subGenre: { schema: Text(100), description: 'Sub-genre of new assets' },
    language: { schema: Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 35 }), description: 'Language of the metadata (BCP 47, e.g. en, fr, pt-BR)', default: 'en' },
    labelName: { schema: Text(), description: 'Label name written on new products and releases' },
    pLine: { schema: Text(), description: 'Sound recording copyright line (℗), e.g. "2026 Night Owl Records"' },
    cLine: { schema: Text(), description: 'Artwork/packaging copyright line (©)' },
    parentalWarning: { schema: lit(PARENTAL_WARNINGS), description: 'Parental warning of tracks not marked explicit', default: 'NotExplicit' },
  },
  ddex: {
    senderDpid: { schema: Dpid, description: 'DDEX Party ID of the sender (the label or its distributor), PADPIDA…' },
    senderName: { schema: Text(), description: 'Sender name (default: the workspace name)' },
    recipientDpid: { schema: Dpid, description: 'DDEX Party ID of the recipient (the DSP or distributor)' },
    recipientName: { schema: Text(), description: 'Recipient name' },
    territories: { schema: Type.Array(Type.String({ maxLength: 9 }), { minItems: 1, maxItems: 300 }), description: 'Territories of the deals: one deal per territory', default: ['Worldwide'], check: territories },
    commercialModels: { schema: Type.Array(lit(COMMERCIAL_MODELS), { minItems: 1, maxItems: COMMERCIAL_MODELS.length, uniqueItems: true }), description: 'DDEX commercial model types of each deal', default: ['SubscriptionModel', 'AdvertisementSupportedModel', 'PayAsYouGoModel'] },
    useTypes: { schema: Type.Array(lit(USE_TYPES), { minItems: 1, maxItems: USE_TYPES.length, uniqueItems: true }), description: 'DDEX use types of each deal', default: ['OnDemandStream', 'NonInteractiveStream', 'PermanentDownload'] },
    dealStartDate: { schema: IsoDate, description: 'First day of the deals (default: the release date, else the day the message is written)' },
    messageControlType: { schema: lit(['LiveMessage', 'TestMessage'] as const), description: 'LiveMessage or TestMessage', default: 'LiveMessage' },
  },
  business: {
    currency: { schema: Type.String({ pattern: '^[A-Z]{3}$' }), description: 'Currency of prices and advances (ISO 4217)' },
    priceTier: { schema: Text(50), description: 'Price tier name used with distributors' },
  },
  validation: {
    requireTrackMedia: { schema: Type.Boolean(), description: 'ERN generation refuses a release whose tracks lack processed audio', default: false },
    requireReleaseDate: { schema: Type.Boolean(), description: 'ERN generation refuses a release without a release date', default: false },
  },
};

/** Categories whose unknown keys are refused (Rondo reads them; a typo would silently do nothing). */
const CLOSED: Category[] = ['content', 'ddex'];
const KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const MAX_VALUE_BYTES = 8192;

/** Check one setting; throws a 400 naming the field. `where` prefixes the field names. */
export function checkSetting(category: Category, key: string, value: unknown, where = 'body'): void {
  if (!KEY_RE.test(key)) throw new ValidationError('Invalid setting key', [`${where}.key must start with a letter and hold letters, digits, _ . - (at most 64)`], 'INVALID_KEY');
  const def = KEYS[category][key];
  if (!def) {
    if (CLOSED.includes(category)) {
      throw new ValidationError(`Unknown ${category} setting "${key}"`, [`${where}.key must be one of ${Object.keys(KEYS[category]).join(', ')}`], 'UNKNOWN_KEY');
    }
  } else {
    const v = compile(def.schema, 'body');
    if (!v(value)) throw new ValidationError(`Invalid value for ${category}.${key}`, formatAjvErrors(`${where}.value`, v.errors), 'INVALID_VALUE');
    const extra = def.check?.(value) ?? [];
    if (extra.length) throw new ValidationError(`Invalid value for ${category}.${key}`, extra.map((e) => `${where}.value: ${e}`), 'INVALID_VALUE');
  }
  if (value === null || value === undefined) throw new ValidationError('Invalid setting value', [`${where}.value must not be null`], 'INVALID_VALUE');
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_VALUE_BYTES) throw new ValidationError('Setting value too large', [`${where}.value is over ${MAX_VALUE_BYTES} bytes of JSON`], 'INVALID_VALUE');
}

/** The known keys, for GET /defaultsettings/... answers and the docs. */
export function catalogueOfKeys() {
  return Object.fromEntries(
    CATEGORIES.map((c) => [c, Object.entries(KEYS[c]).map(([key, d]) => ({ key, description: d.description, default: d.default ?? null }))]),
  );
}
