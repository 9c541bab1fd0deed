import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Splits: who gets which percentage of the money a recording, a product or an artist
 * earns.
 *
 * - `splits`: one row per split. `target` says what it splits: an asset (asset_id), a
 *   product (product_id) or an artist's default (artist_id, used for that artist's
 *   recordings and products that have no split of their own). `type` is the sale-type
 *   family it covers: `all` (default) or one of the canonical sale types the parsers
 *   produce (stream, download, ugc, physical, return, radio, sync, ringtone, other).
 *   Conditions: `valid_from`/`valid_to` (inclusive sale dates, null = open) and
 *   `territories` (ISO 3166-1 alpha-2 codes, sorted; null = worldwide).
 * - `split_shares`: the payees, `share` a NUMERIC percentage. A deferred constraint
 *   trigger checks at commit that every split's shares sum to exactly 100.
 * - `split_history`: written by a trigger on split_shares, so every change (API, bulk,
 *   merge, SQL) is recorded: which share of whom went from what to what, when, by whom
 *   (`app.tenant_user_id`, set by the service for the transaction).
 */
const SPLIT_TYPES = ['all', 'stream', 'download', 'ugc', 'physical', 'return', 'radio', 'sync', 'ringtone', 'other'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('splits', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('target').notNullable();
    t.uuid('asset_id');
    t.uuid('product_id');
    t.uuid('artist_id');
    t.text('type').notNullable().defaultTo('all');
    t.date('valid_from');
    t.date('valid_to');
    t.specificType('territories', 'text[]');
    t.text('name');
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('CASCADE');
    t.foreign(['tenant_id', 'artist_id']).references(['tenant_id', 'id']).inTable('artists').onDelete('CASCADE');
    t.check(
      `(target = 'asset' AND asset_id IS NOT NULL AND product_id IS NULL AND artist_id IS NULL)
       OR (target = 'product' AND product_id IS NOT NULL AND asset_id IS NULL AND artist_id IS NULL)
       OR (target = 'artist' AND artist_id IS NOT NULL AND asset_id IS NULL AND product_id IS NULL)`,
      [],
      'splits_target_check',
    );
    t.check(`type IN (${SPLIT_TYPES.map((s) => `'${s}'`).join(',')})`, [], 'splits_type_check');
    t.check(`valid_from IS NULL OR valid_to IS NULL OR valid_from <= valid_to`, [], 'splits_validity_check');
  });
  // One split per target, type and set of conditions; the allocation job looks splits up
  // by target (these indexes lead with tenant, target id, type).
  await knex.raw(`
    CREATE UNIQUE INDEX splits_target_conditions_key ON splits (
      tenant_id, target, COALESCE(asset_id, product_id, artist_id), type,
      COALESCE(valid_from, '-infinity'::date), COALESCE(valid_to, 'infinity'::date), COALESCE(territories, '{}'::text[]))`);
  await knex.raw(`CREATE INDEX splits_asset_idx ON splits (tenant_id, asset_id, type) WHERE asset_id IS NOT NULL`);
  await knex.raw(`CREATE INDEX splits_product_idx ON splits (tenant_id, product_id, type) WHERE product_id IS NOT NULL`);
  await knex.raw(`CREATE INDEX splits_artist_idx ON splits (tenant_id, artist_id, type) WHERE artist_id IS NOT NULL`);
  await enableTenantRls(knex, 'splits');

  await knex.schema.createTable('split_shares', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('split_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.decimal('share', 9, 6).notNullable();
    t.primary(['tenant_id', 'split_id', 'tenant_user_id']);
    t.foreign(['tenant_id', 'split_id']).references(['tenant_id', 'id']).inTable('splits').onDelete('CASCADE');
    // RESTRICT: a member who holds a share cannot be removed until the split is changed.
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('RESTRICT');
    t.check(`share > 0 AND share <= 100`, [], 'split_shares_share_check');
  });
  await knex.raw(`CREATE INDEX split_shares_user_idx ON split_shares (tenant_id, tenant_user_id)`);
  await enableTenantRls(knex, 'split_shares');

  await knex.schema.createTable('split_history', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.bigIncrements('seq').notNullable();
    t.uuid('split_id').notNullable(); // no FK: history outlives the split
    t.text('target');
    t.uuid('asset_id');
    t.uuid('product_id');
    t.uuid('artist_id');
    t.text('type');
    t.text('action').notNullable(); // add | change | remove | move
    t.uuid('tenant_user_id');
    t.decimal('old_share', 9, 6);
    t.decimal('new_share', 9, 6);
    t.uuid('changed_by');
    t.text('note');
    t.timestamp('changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'seq']);
  });
  await knex.raw(`CREATE INDEX split_history_split_idx ON split_history (tenant_id, split_id, seq)`);
  await knex.raw(`CREATE INDEX split_history_user_idx ON split_history (tenant_id, tenant_user_id, seq)`);
  await enableTenantRls(knex, 'split_history');

  // Shares sum to exactly 100 per split, checked at commit (so a split can be rewritten in
  // several statements). A split without shares fails too.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION split_total_check() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sid uuid; tid integer; total numeric;
    BEGIN
      IF TG_TABLE_NAME = 'splits' THEN sid := NEW.id; tid := NEW.tenant_id;
      ELSIF TG_OP = 'DELETE' THEN sid := OLD.split_id; tid := OLD.tenant_id;
      ELSE sid := NEW.split_id; tid := NEW.tenant_id; END IF;
      IF NOT EXISTS (SELECT 1 FROM splits WHERE tenant_id = tid AND id = sid) THEN RETURN NULL; END IF;
      SELECT COALESCE(sum(share), 0) INTO total FROM split_shares WHERE tenant_id = tid AND split_id = sid;
      IF total <> 100 THEN
        RAISE EXCEPTION 'split % shares sum to %, not 100', sid, total USING ERRCODE = '23514', CONSTRAINT = 'split_shares_sum_100';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE CONSTRAINT TRIGGER split_shares_sum_100 AFTER INSERT OR UPDATE OR DELETE ON split_shares DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION split_total_check()`);
  await knex.raw(`CREATE CONSTRAINT TRIGGER splits_sum_100 AFTER INSERT ON splits DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION split_total_check()`);

  await knex.raw(`
    CREATE OR REPLACE FUNCTION split_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE s splits%ROWTYPE; r split_shares%ROWTYPE; act text;
    BEGIN
      IF TG_OP = 'DELETE' THEN r := OLD; act := 'remove';
      ELSIF TG_OP = 'INSERT' THEN r := NEW; act := 'add';
      ELSE
        IF NEW.share = OLD.share THEN RETURN NULL; END IF;
        r := NEW; act := 'change';
      END IF;
      SELECT * INTO s FROM splits WHERE tenant_id = r.tenant_id AND id = r.split_id;
      INSERT INTO split_history (tenant_id, split_id, target, asset_id, product_id, artist_id, type, action,
                                 tenant_user_id, old_share, new_share, changed_by, note)
      VALUES (r.tenant_id, r.split_id, s.target, s.asset_id, s.product_id, s.artist_id, s.type, act, r.tenant_user_id,
              CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.share END,
              CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.share END,
              NULLIF(current_setting('app.tenant_user_id', true), '')::uuid,
              NULLIF(current_setting('app.change_note', true), ''));
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER split_shares_history AFTER INSERT OR UPDATE OR DELETE ON split_shares FOR EACH ROW EXECUTE FUNCTION split_history_record()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS split_history, split_shares, splits CASCADE`);
  await knex.raw(`DROP FUNCTION IF EXISTS split_history_record(), split_total_check()`);
}
