/**
 * The reference service's field names of artists, recordings and products (docs/api.md
 * "Resource bodies in the reference's names"): taken in bodies beside Rondo's, answered beside them.
 */
import { isObject, same, type ReferenceNames } from '../../http/reference-names';

/** `artistName` is the name; the reference's descriptive fields Rondo keeps in the artist's metadata. */
export const ARTIST_NAMES: ReferenceNames = {
  rename: { artistName: 'name' },
  metadata: ['signDate', 'realName', 'label', 'publisher', 'copyright', 'artistImg', 'links', 'genres', 'pseudonyms', 'biography'],
};

/** Track/asset: `ISRC` is the ISRC; title, type, version, displayArtist, mainArtist, mainGenre, subGenre are Rondo's names already. */
export const ASSET_NAMES: ReferenceNames = { rename: { ISRC: 'isrc' } };

/** Product/release: the reference writes some fields in snake case. */
export const PRODUCT_NAMES: ReferenceNames = {
  rename: { UPC: 'upc', release_date: 'releaseDate', catalog_number: 'catalogNumber', display_artist: 'displayArtist' },
};

const TARGETS = ['artist', 'product', 'asset'] as const;
const SPLIT_TYPES = ['simple', 'conditional', 'temporal'] as const;

/** The reference's kind of split, from its conditions: territories make it conditional, dates alone temporal. */
function splitTypeOf(c: Record<string, unknown> | null | undefined): (typeof SPLIT_TYPES)[number] {
  if (!c) return 'simple';
  if (Array.isArray(c.territories) && c.territories.length) return 'conditional';
  return c.validFrom || c.validTo ? 'temporal' : 'simple';
}

/** Sets `obj[key]` from a reference field, or names both fields when they disagree. */
function put(obj: Record<string, unknown>, key: string, value: unknown, ref: string, own: string, problems: string[]): void {
  if (key in obj && obj[key] !== undefined && !same(obj[key], value)) problems.push(`${ref} and ${own} name the same field with different values: send one`);
  else obj[key] = value;
}

/** A split body in the reference's names (entity_type/entity_id, shares[{user, percentage}], effective_date, conditions) in Rondo's. */
function splitBody(b: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if ('entity_type' in b || 'entity_id' in b) {
    const type = b.entity_type;
    if (!TARGETS.includes(type as never)) problems.push(`body.entity_type must be one of ${TARGETS.join(', ')} (with body.entity_id)`);
    else if (typeof b.entity_id !== 'string') problems.push('body.entity_id: the id of the split\'s artist, product or asset is required with body.entity_type');
    else put(b, type as string, b.entity_id, 'body.entity_id', `body.${type as string}`, problems);
    delete b.entity_type;
    delete b.entity_id;
  }
  if ('shares' in b) {
    if (!Array.isArray(b.shares)) problems.push('body.shares must be an array of {user, percentage}');
    else {
      const shares = b.shares.map((s, i) => {
        if (!isObject(s)) return s;
        const { percentage, ...rest } = s;
        if ('share' in rest && percentage !== undefined && !same(rest.share, percentage)) problems.push(`body.shares[${i}].percentage and body.shares[${i}].share name the same field with different values: send one`);
        return percentage === undefined ? rest : { ...rest, share: percentage };
      });
      put(b, 'split', shares, 'body.shares', 'body.split', problems);
    }
    delete b.shares;
  }
  const refConditions = isObject(b.conditions) ? (b.conditions as Record<string, unknown>) : null;
  if (refConditions || 'effective_date' in b) {
    const c: Record<string, unknown> = refConditions ? { ...refConditions } : {};
    if ('effective_date' in b) put(c, 'validFrom', b.effective_date, 'body.effective_date', 'body.conditions.validFrom', problems);
    if ('period_start' in c) {
      put(c, 'validFrom', c.period_start, 'body.conditions.period_start', 'body.effective_date or body.conditions.validFrom', problems);
      delete c.period_start;
    }
    if ('period_end' in c) {
      put(c, 'validTo', c.period_end, 'body.conditions.period_end', 'body.conditions.validTo', problems);
      delete c.period_end;
    }
    if ('mode' in c) {
      if (c.mode === 'exclude') problems.push('body.conditions.mode: a split applies in the territories it names (include); "exclude" is not offered: name the territories it applies in');
      else if (c.mode !== 'include') problems.push('body.conditions.mode must be include');
      delete c.mode;
    }
    if ('sources' in c) {
      if (Array.isArray(c.sources) && c.sources.length) problems.push('body.conditions.sources: a split does not depend on the source of the income; leave it out or empty');
      delete c.sources;
    }
    if ('memo' in c) {
      if (c.memo !== null && c.memo !== '') problems.push("body.conditions.memo: a split's conditions keep no memo; give the split a name (body.name)");
      delete c.memo;
    }
    delete b.effective_date;
    b.conditions = c;
  }
  if ('split_type' in b) {
    const want = b.split_type;
    const got = splitTypeOf(isObject(b.conditions) ? b.conditions : null);
    if (!SPLIT_TYPES.includes(want as never)) problems.push(`body.split_type must be one of ${SPLIT_TYPES.join(', ')}`);
    else if (want !== got) problems.push(`body.split_type is ${String(want)} but the conditions make a ${got} split (territories: conditional; dates only: temporal; none: simple)`);
    delete b.split_type;
  }
  return problems;
}

/** A split answered with the reference's fields beside Rondo's. */
function splitAnswer(s: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(s.split) || typeof s.target !== 'string') return s;
  const c = isObject(s.conditions) ? s.conditions : null;
  return {
    ...s,
    entity_type: s.target,
    entity_id: s[s.target] ?? null,
    split_type: splitTypeOf(c),
    effective_date: c?.validFrom ?? null,
    shares: s.split.map((x: { user: string; share: number | string }) => ({ user: x.user, percentage: String(x.share) })),
    ...(c ? { conditions: { ...c, mode: 'include', period_start: c.validFrom ?? null, period_end: c.validTo ?? null } } : {}),
  };
}

/** What a change's reference fields say of the split as it stands (kept on the body beside Rondo's fields, where no schema sees it). */
const AGAINST_SPLIT = Symbol('reference fields checked against the split');
interface AgainstSplit { mergeConditions?: true; splitType?: unknown }

/**
 * A change (PUT) in the reference's names: as a create, except that `effective_date` or
 * `split_type` sent without `conditions` are read against the split as it stands (the first
 * day changes, the territories and last day stay; the kind must agree with its conditions).
 */
function splitPatchBody(b: Record<string, unknown>): string[] {
  if (!('conditions' in b) && ('effective_date' in b || 'split_type' in b)) {
    const against: AgainstSplit = {};
    if ('effective_date' in b) {
      against.mergeConditions = true;
      b.conditions = { validFrom: b.effective_date };
    }
    if ('split_type' in b) against.splitType = b.split_type;
    delete b.effective_date;
    delete b.split_type;
    Object.defineProperty(b, AGAINST_SPLIT, { value: against, enumerable: false });
  }
  return splitBody(b);
}

/**
 * A change's body against the split it changes: the target it names (`entity_type` +
 * `entity_id`, or `asset`/`product`/`artist`) must be the split's own (a split's target does not
 * change), and the fields `splitPatchBody` left are applied to its conditions. Returns the
 * problems; the body is left in Rondo's names for `updateSplit`.
 */
export function splitPatchAgainst(current: { target: string; asset: string | null; product: string | null; artist: string | null; conditions: Record<string, unknown> }, body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const k of TARGETS) {
    if (!(k in body)) continue;
    if (k !== current.target || body[k] !== current[k]) problems.push(`body.${k} (or body.entity_type and body.entity_id): a split's ${current.target} does not change; create a split for another ${k}`);
    delete body[k];
  }
  const against = (body as { [AGAINST_SPLIT]?: AgainstSplit })[AGAINST_SPLIT];
  if (against) {
    const conditions = { ...current.conditions, ...(against.mergeConditions && isObject(body.conditions) ? body.conditions : {}) };
    if (against.mergeConditions) body.conditions = conditions;
    if ('splitType' in against) {
      const got = splitTypeOf(conditions);
      if (!SPLIT_TYPES.includes(against.splitType as never)) problems.push(`body.split_type must be one of ${SPLIT_TYPES.join(', ')}`);
      else if (against.splitType !== got) problems.push(`body.split_type is ${String(against.splitType)} but the split's conditions make a ${got} split (territories: conditional; dates only: temporal; none: simple)`);
    }
  }
  return problems;
}

/** Split: `entity_type` + `entity_id` is the target, `shares[{user, percentage}]` the split, `effective_date` the first day. */
export const SPLIT_NAMES: ReferenceNames = {
  rename: {},
  about:
    'entity_type + entity_id name the asset, product or artist; shares[{user, percentage}] is split[{user, share}] (summing to 100); effective_date and conditions.period_start are conditions.validFrom, ' +
    'conditions.period_end conditions.validTo; conditions.mode include only, sources empty, memo empty; split_type (simple, conditional, temporal) must agree with the conditions. Answers carry them too.',
  body: splitBody,
  answer: splitAnswer,
};

/** A change of a split (PUT): the same names, read against the split as it stands (`splitPatchAgainst`). */
export const SPLIT_PATCH_NAMES: ReferenceNames = {
  ...SPLIT_NAMES,
  about:
    SPLIT_NAMES.about +
    ' On a change, entity_type + entity_id (or asset, product, artist) must name the split\'s own target; effective_date without conditions changes only the first day; split_type without conditions must agree with the split\'s conditions.',
  body: splitPatchBody,
};
