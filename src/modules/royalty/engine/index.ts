/**
 * The embedded analytics engine: a DuckDB replica following Postgres (replica.ts; its layout,
 * layout.ts; its sums, sums.ts) and the grouped sums of a breakdown read from it (query.ts).
 * Infrastructure only: what it copies and when it is made are the royalty area's
 * (../analytics-engine.ts).
 */
export { AnalyticsReplica, SUMS_REBUILD_LINES, type GroupedRows, type ReplicaOptions } from './replica';
export { REPLICA_LINE_COLUMNS, REPLICA_LINE_ORDER, SHARE_SET_COLUMNS } from './layout';
export { REPLICA_SUMS, applyReplicaSums, buildReplicaSums, mergesSums, sumsCheckSql, sumsKeys, type ReplicaSums } from './sums';
export { duckdbGrouped, replicaSumsOf, type EnginePage, type Grouped, type GroupedPlan } from './query';
