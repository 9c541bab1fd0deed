/**
 * Which columns of which tables point at a person, and what an erasure does with them.
 * Every base table of the database must be declared here (a test compares this map with
 * the catalogue): a new table holding people's data cannot slip past erasure unnoticed.
 *
 * Reference kinds: `user` (users.id), `tenant_user` (tenant_users.id, the person in one
 * workspace), `either` (actor columns such as created_by, which hold one or the other).
 */
import type { Knex } from 'knex';
import { SHAPE_TABLES } from '../royalty/shapes';

export type RefKind = 'user' | 'tenant_user' | 'either';
export interface Ref {
  column: string;
  kind: RefKind;
}

/** Values the anonymiser writes, from the subject's short hash (not derivable from their e-mail). */
export interface Anonymous {
  hash: string;
  email: string;
  name: string;
}

export type TableRule =
  /** No column refers to a person. */
  | { action: 'none'; why: string }
  /** The rows are the person's own and go. */
  | { action: 'delete'; refs: Ref[] }
  /** The rows stay; identifying columns are overwritten. `pending`: SQL true while a row still holds them. */
  | { action: 'anonymise'; refs: Ref[]; set: (a: Anonymous) => Record<string, unknown>; pending: (a: Anonymous) => [string, Knex.RawBinding[]] }
  /** The rows stay as they are: they hold only pseudonymous ids (no name, no address), and the law or accountability needs them. */
  | { action: 'retain'; refs: Ref[]; why: string }
  /** Handled by its own section of the plan (cache keys, external deliveries). */
  | { action: 'special'; section: 'cacheKeys' | 'externalDeliveries'; why: string };

const actor = (...columns: string[]): Ref[] => columns.map((column) => ({ column, kind: 'either' as const }));
const tu: Ref[] = [{ column: 'tenant_user_id', kind: 'tenant_user' }];
const ACTOR_WHY = 'who did it (a pseudonymous id; the person row it names is anonymised)';
/** No column of the table refers to a person: `why` says what it holds. */
const none = (why: string): TableRule => ({ action: 'none', why });
/** The rows stay, naming who did it (these actor columns) by a pseudonymous id only. */
const byActor = (...columns: string[]): TableRule => ({ action: 'retain', refs: actor(...columns), why: ACTOR_WHY });
const FINANCIAL = 'financial record kept for bookkeeping retention; it names the payee by id only, and the payee row is anonymised';


/**
 * Columns where Rondo copies a person's e-mail address or name into records that are not the
 * person's own: the admins' notification "x@… was invited to …" (title and metadata), a
 * delivery's error, the super-admin's search in the audit log. The erasure finds the person's
 * address and full name in them, in every workspace, and replaces them with the pseudonyms
 * (plan action `redact`). A test scans every text and JSON column after an erasure, so a copy
 * made anywhere else fails it.
 */
export const COPIES: Record<string, string[]> = {
  notifications: ['title', 'content', 'metadata'],
  notification_deliveries: ['history', 'last_error'],
  platform_audit: ['details'],
};

export const ERASURE_MAP: Record<string, TableRule> = {
  // --- the person ---------------------------------------------------------------------
  users: {
    action: 'anonymise',
    refs: [{ column: 'id', kind: 'user' }],
    set: (a) => ({ email: a.email, first_name: a.name, last_name: null, password_hash: null, social_ids: '{}', is_super_admin: false, password_changed_at: null }),
    pending: (a) => [`email IS DISTINCT FROM ?`, [a.email]],
  },
  tenant_users: { action: 'anonymise', refs: [{ column: 'user_id', kind: 'user' }], set: () => ({ status: 'disabled' }), pending: () => [`status <> 'disabled'`, []] },
  sessions: { action: 'delete', refs: [{ column: 'user_id', kind: 'user' }] },
  one_time_tokens: { action: 'delete', refs: [{ column: 'user_id', kind: 'user' }] },
  api_keys: { action: 'delete', refs: [{ column: 'user_id', kind: 'user' }, { column: 'tenant_user_id', kind: 'tenant_user' }] },
  notifications: { action: 'delete', refs: tu },
  notification_reads: { action: 'delete', refs: tu },
  notification_preferences: { action: 'delete', refs: tu },
  notification_deliveries: { action: 'delete', refs: tu },
  push_subscriptions: { action: 'delete', refs: tu },
  artist_users: { action: 'delete', refs: tu },
  payment_settings: { action: 'delete', refs: tu },
  rate_limit_hits: { action: 'special', section: 'cacheKeys', why: 'rate-limit counters keyed by a hash of the e-mail address' },
  outbound_events: { action: 'special', section: 'externalDeliveries', why: 'queued or sent webhook payloads that mention the person' },
  webhook_deliveries: { action: 'special', section: 'externalDeliveries', why: 'the signed bodies of webhook deliveries (copies of outbox payloads) that mention the person' },
  webhook_attempts: none("receivers' answers to webhook deliveries (status, latency, first 1 KB; deleted with their delivery)"),
  // --- money: kept, anonymised ---------------------------------------------------------
  payments: {
    action: 'anonymise',
    refs: tu,
    set: (a) => ({ first_name: a.name, last_name: null }),
    pending: (a) => [`(first_name IS DISTINCT FROM ? OR last_name IS NOT NULL)`, [a.name]],
  },
  payment_requests: { action: 'anonymise', refs: tu, set: () => ({ memo: null }), pending: () => [`memo IS NOT NULL`, []] },
  ledger_entries: { action: 'retain', refs: tu, why: FINANCIAL },
  royalty_earnings: { action: 'retain', refs: tu, why: FINANCIAL },
  royalty_share_sets: { action: 'retain', refs: tu, why: FINANCIAL },
  data_shares: { action: 'retain', refs: actor('created_by'), why: `${ACTOR_WHY}; a payee-analytics share names its member by id only and reads anonymised rows after an erasure` },
  catalogue_import_batches: byActor('created_by'),
  catalogue_import_items: none('staged catalogue metadata (no account holder)'),
  statements: { action: 'retain', refs: tu, why: `${FINANCIAL}; an issued statement is frozen and hashed: its stored figures, CSV and PDF name the payee by id only (the name and e-mail are in statement_payees)` },
  statement_payees: {
    action: 'anonymise',
    refs: tu,
    set: (a) => ({ name: `Erased payee ${a.hash}`, email: null, legacy_pdf: null }),
    pending: (a) => [`(name IS DISTINCT FROM ? OR email IS NOT NULL OR legacy_pdf IS NOT NULL)`, [`Erased payee ${a.hash}`]],
  },
  statement_adjustments: { action: 'retain', refs: tu, why: FINANCIAL },
  statement_runs: byActor('created_by'),
  accounting_period_closes: byActor('closed_by'),
  publishing_share_sets: none('who shares a publishing line: writers and publishers by id (no account holder)'),
  publishing_match_rules: byActor('created_by'),
  publishing_match_suggestions: byActor('decided_by'),
  publisher_statements: { action: 'retain', refs: actor('created_by'), why: `${FINANCIAL}; a publisher statement names its writer or publisher by id only` },
  publisher_statement_lines: none('figures of a publisher statement, per work (no person)'),
  publisher_statement_adjustments: { action: 'retain', refs: actor('created_by'), why: FINANCIAL },
  royalty_allocation_history: none('which share set paid a line before a re-allocation (share sets name payees by id only)'),
  expenses: { action: 'retain', refs: [...tu, ...actor('created_by')], why: FINANCIAL },
  revenue_shares: { action: 'retain', refs: tu, why: FINANCIAL },
  revenues: byActor('created_by'),
  split_shares: { action: 'retain', refs: tu, why: 'royalty split contract: shares by payee id, needed to explain retained earnings' },
  split_history: { action: 'retain', refs: [...tu, ...actor('changed_by')], why: 'history of split contracts, by payee id' },
  splits: byActor('created_by'),
  ...Object.fromEntries(SHAPE_TABLES.map((t) => [t, none('sums of statement lines per file and share set (no person)')])),
  analytics_versions: none('a counter of analytics changes per workspace (no person)'),
  analytics_changes: none('which statement files each analytics version changed (no person)'),
  analytics_identity: none('the random id of this database, for the analytics replicas (no person)'),
  // --- workspace data with actor columns -------------------------------------------------
  files: byActor('uploaded_by'),
  file_upload_intents: byActor('created_by'),
  releases: byActor('created_by', 'reviewed_by'),
  release_events: byActor('author_id'),
  fx_rates: byActor('set_by'),
  match_suggestions: byActor('decided_by'),
  matching_rules: byActor('created_by'),
  source_pattern_versions: byActor('created_by'),
  tenant_sources: byActor('created_by'),
  platform_audit: { action: 'retain', refs: [{ column: 'target_id', kind: 'either' }, { column: 'actor_id', kind: 'either' }], why: 'super-admin accountability: ids only' },
  // --- partners and default settings (tables of those areas) ---------------------------
  fx_beneficiary_links: { action: 'delete', refs: tu },
  fx_payment_requests: { action: 'anonymise', refs: tu, set: () => ({ memo: null }), pending: () => [`memo IS NOT NULL`, []] },
  invoicer_oauth_states: byActor('created_by'),
  default_settings: { action: 'delete', refs: [{ column: 'entity_id', kind: 'tenant_user' }] },
  default_setting_template_uses: { action: 'delete', refs: [{ column: 'entity_id', kind: 'tenant_user' }] },
  default_setting_templates: byActor('created_by'),
  webhook_endpoints: byActor('created_by'),
  fx_integrations: none('workspace partner key'),
  fx_events: none('partner events: ids, amounts, statuses'),
  invoicer_connections: none('workspace partner tokens'),
  invoicer_imports: none('imported invoice ids'),
  distributor_credentials: none('workspace partner credentials'),
  catalogs: none('catalogue'),
  labels: none('catalogue'),
  label_artists: none('catalogue'),
  // --- publishing ----------------------------------------------------------------------
  writers: { action: 'retain', refs: tu, why: 'songwriter credit as registered with societies (a professional credit, like an artist name) and the paid member by id only' },
  publishers: { action: 'retain', refs: tu, why: 'publisher as registered with societies, and the paid member by id only' },
  works: byActor('created_by'),
  work_titles: none('catalogue of works'),
  work_writers: none('catalogue of works (writers by id)'),
  work_publishers: none('catalogue of works (publishers by id)'),
  work_recordings: none('catalogue of works'),
  publishing_agreements: { action: 'retain', refs: actor('created_by'), why: `${ACTOR_WHY}; the agreement names writer and publisher by id` },
  cwr_submissions: { action: 'retain', refs: actor('created_by'), why: `${ACTOR_WHY}; the file sent to a society is a record of what was registered` },
  work_registrations: byActor('created_by'),
  work_claims: byActor('created_by'),
  // --- no person in them ---------------------------------------------------------------
  tenants: none('workspaces'),
  plans: none('plan catalogue'),
  artists: none('catalogue (published artist names are not the account holder)'),
  assets: none('catalogue'),
  asset_artists: none('catalogue'),
  products: none('catalogue'),
  product_artists: none('catalogue'),
  product_assets: none('catalogue'),
  catalogue_media: none('catalogue media'),
  tracks: none('catalogue'),
  track_media: none('catalogue media'),
  royalty_lines: none('statement lines from stores (no account holder)'),
  file_errors: none('statement lines refused at ingest, and warnings on lines kept'),
  file_expense_lines: none('cost rows of statements (identifiers, amounts)'),
  allocation_dirty: none('work queue of catalogue ids'),
  allocation_changes: none('transaction ids of catalogue changes'),
  allocation_change_floor: none('a transaction id'),
  source_patterns: none('statement formats'),
  source_confirmations: none('the source a file shape was confirmed as (header fingerprint, file name shape)'),
  processor_integrations: none('workspace processor secret'),
  processor_events: none('processor transfer events: ids, amounts, statuses'),
  system_secrets: none('process keys'),
  custom_domains: none('workspace domains'),
  workspace_branding: none("the workspace's logo, colours and sender name"),
  distributor_events: none('distributor delivery events: ids, types, statuses'),
  // the erasure job itself (owner pool): the person by id only; declared none so that queuing
  // the job does not change the plan it is about to execute
  account_erasures: none('erasure jobs: ids and row counts only'),
  email_domains: none('workspace sender domains and their DKIM keys'),
  email_settings: none('workspace sender settings'),
  email_templates: none('workspace e-mail templates'),
  knex_migrations: none('schema history'),
  knex_migrations_lock: none('schema history'),
};
