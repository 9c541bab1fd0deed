/**
 * The embedded analytics engine: a DuckDB replica following Postgres (replica.ts) and the
 * grouped sums of a breakdown read from it (query.ts). Infrastructure only: what it copies
 * and when it is made are the royalty area's (../analytics-engine.ts).
 */
export { AnalyticsReplica, REPLICA_LINE_COLUMNS, REPLICA_LINE_ORDER, REPLICA_SUMS, SHARE_SET_COLUMNS, buildReplicaSums, type GroupedRows, type ReplicaOptions, type ReplicaSums } from './replica';
export { duckdbGrouped, replicaSumsOf, type EnginePage, type Grouped, type GroupedPlan } from './query';
