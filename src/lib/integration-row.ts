/**
 * The one row of a workspace's partner integration (processor, FX partner): created with its
 * secret sealed, or updated with what is given (a new secret sealed and stamped). Runs in the
 * workspace's transaction; `current` is the row read FOR UPDATE (or none).
 */
import type { Knex } from 'knex';

export interface SealedSecret {
  /** Column of the sealed secret and column of the time it was set. */
  column: string;
  stampColumn: string;
  /** The new secret in clear; undefined or empty: keep the stored one. */
  value?: string | null;
}

export async function saveIntegrationRow(
  trx: Knex,
  table: string,
  current: unknown,
  seal: (clear: string) => string,
  secret: SealedSecret,
  fields: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const sealed = secret.value ? { [secret.column]: seal(secret.value), [secret.stampColumn]: now } : {};
  if (!current) await trx(table).insert({ tenant_id: trx.raw('app_tenant_id()'), is_enabled: true, ...given, ...sealed, created_at: now, updated_at: now });
  else await trx(table).update({ ...given, ...sealed, updated_at: now });
}
