/** Public API of the source-pattern engine. Database-free. */
import type { SourcePattern } from './schema';
import { distrokid2018, distrokid2023, distrokidCurrent, tunecore, cdbaby, believe, fuga, orchard } from './builtin/distributors';
import { clicknclear } from './builtin/licensing';
import { imusician, amuse, offstep, cargo, smartrights, confirmedSales } from './builtin/aggregators';
import { prsDistribution, ascapStatement, bmiStatement, mlcWorkSummary, soundExchange } from './builtin/societies';
import { appleMusic, itunes, youtubeAssetRaw, bandcamp, soundcloud, ddexDsr } from './builtin/stores';

export type * from './types';
export { SourcePatternSchema, validatePattern, type SourcePattern, type FieldMapping, type RowRule } from './schema';
export { detectSource, fileShape, detectArchive, sniffEncoding, sniffDelimiter, WINNER_THRESHOLD } from './detect';
export { readStatement, BATCH_SIZE } from './read';
export * as normalise from './normalise';

/** Every built-in pattern (validated by test/unit/parsers/builtin.test.ts). */
export const builtinPatterns: SourcePattern[] = [
  distrokidCurrent,
  distrokid2023,
  distrokid2018,
  tunecore,
  cdbaby,
  appleMusic,
  itunes,
  youtubeAssetRaw,
  believe,
  fuga,
  orchard,
  bandcamp,
  soundcloud,
  ddexDsr,
  clicknclear,
  imusician,
  amuse,
  offstep,
  cargo,
  smartrights,
  confirmedSales,
  prsDistribution,
  ascapStatement,
  bmiStatement,
  mlcWorkSummary,
  soundExchange,
];
export { checkPatternOnSample, type SampleCheck } from './check';
export { draftPattern, ROLES, ROLE_FIELD, type Draft, type DraftColumn, type Role } from './draft';
