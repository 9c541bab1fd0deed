import type { Knex } from 'knex';

/**
 * Allocation speed (bench:ingest): a file's earnings are written by one INSERT … SELECT of
 * 2–3 rows per statement line, and each of royalty_earnings' two foreign keys was a per-row
 * RI trigger: measured on 750k rows, 4.7 s with the indexes alone, 10.5 s with the
 * tenant-user FK, 15.5 s with both. As for royalty_lines (no FKs: a per-row trigger during COPY), the same
 * guarantees are kept by triggers on the RARE side (deletes of members and workspaces):
 *
 *  - payee must exist: rows are only ever written from split_shares, whose payees are
 *    FK-checked; deleting a member who has earnings (current or superseded) is refused
 *    with foreign_key_violation (23503, the same error the FK gave: "in use"), unless the
 *    whole workspace is being deleted;
 *  - a workspace's deletion removes its earnings (was: ON DELETE CASCADE).
 *
 * Superseded rows get their own partial index (payee lookups on delete); rows enter it only
 * when re-allocation supersedes them, so allocation's INSERT does not maintain it.
 * royalty_earnings_file_idx (tenant_id, file_id) WHERE current goes: royalty_earnings_line_idx
 * (tenant_id, file_id, line_id) serves the same lookups, and each index is ~1/5 of the INSERT.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE royalty_earnings DROP CONSTRAINT IF EXISTS royalty_earnings_tenant_id_foreign`);
  await knex.raw(`ALTER TABLE royalty_earnings DROP CONSTRAINT IF EXISTS royalty_earnings_tenant_id_tenant_user_id_foreign`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_earnings_file_idx`);
  await knex.raw(
    `CREATE INDEX royalty_earnings_superseded_payee_idx ON royalty_earnings (tenant_id, tenant_user_id) WHERE superseded_at IS NOT NULL`,
  );
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_earnings_payee_in_use() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- the whole workspace is going (its tenants row is already deleted): nothing to protect
      IF NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = OLD.tenant_id) THEN RETURN OLD; END IF;
      IF EXISTS (SELECT 1 FROM royalty_earnings e WHERE e.tenant_id = OLD.tenant_id AND e.tenant_user_id = OLD.id AND e.superseded_at IS NULL)
         OR EXISTS (SELECT 1 FROM royalty_earnings e WHERE e.tenant_id = OLD.tenant_id AND e.tenant_user_id = OLD.id AND e.superseded_at IS NOT NULL) THEN
        RAISE EXCEPTION 'update or delete on table "tenant_users" violates foreign key constraint on table "royalty_earnings"'
          USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (tenant_id, id)=(%s, %s) is still referenced from table "royalty_earnings".', OLD.tenant_id, OLD.id);
      END IF;
      RETURN OLD;
    END $$`);
  await knex.raw(`CREATE TRIGGER royalty_earnings_payee_in_use BEFORE DELETE ON tenant_users FOR EACH ROW EXECUTE FUNCTION royalty_earnings_payee_in_use()`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_earnings_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_earnings WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
  await knex.raw(`CREATE TRIGGER royalty_earnings_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_earnings_tenant_gone()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_earnings_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_earnings_tenant_gone()`);
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_earnings_payee_in_use ON tenant_users`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_earnings_payee_in_use()`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_earnings_superseded_payee_idx`);
  await knex.raw(`CREATE INDEX royalty_earnings_file_idx ON royalty_earnings (tenant_id, file_id) WHERE superseded_at IS NULL`);
  await knex.raw(`ALTER TABLE royalty_earnings ADD CONSTRAINT royalty_earnings_tenant_id_foreign FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`);
  await knex.raw(
    `ALTER TABLE royalty_earnings ADD CONSTRAINT royalty_earnings_tenant_id_tenant_user_id_foreign FOREIGN KEY (tenant_id, tenant_user_id) REFERENCES tenant_users(tenant_id, id)`,
  );
}
