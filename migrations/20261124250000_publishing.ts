import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Publishing (docs/publishing.md): writers and publishers, musical works (alternate titles,
 * writer and publisher shares with their performance and mechanical shares, linked
 * recordings), publisher-writer agreements, society registrations with the CWR files that
 * carried them, and conflicting claims on works.
 */
export async function up(knex: Knex): Promise<void> {
  const party = (t: Knex.CreateTableBuilder) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
  };
  const member = (t: Knex.CreateTableBuilder) => {
    // the workspace member who is paid for this party (optional)
    t.uuid('tenant_user_id');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('RESTRICT');
  };

  // The submitter's interested-party number of CWR (9 characters): W or P + 8 digits.
  await knex.raw(`CREATE SEQUENCE writers_code_seq`);
  await knex.raw(`CREATE SEQUENCE publishers_code_seq`);
  await knex.schema.createTable('writers', (t) => {
    party(t);
    t.text('code').notNullable().defaultTo(knex.raw(`'W' || lpad(nextval('writers_code_seq')::text, 8, '0')`));
    t.text('first_name');
    t.text('last_name').notNullable();
    t.text('ipi'); // IPI name number, 11 digits
    t.text('society'); // performing-rights society code (PRS, ASCAP, …)
    t.boolean('controlled').notNullable().defaultTo(true);
    member(t);
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'code']);
    t.check(`ipi ~ '^[0-9]{11}$'`, [], 'writers_ipi_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX writers_ipi_idx ON writers (tenant_id, ipi) WHERE ipi IS NOT NULL`);
  await enableTenantRls(knex, 'writers');

  await knex.schema.createTable('publishers', (t) => {
    party(t);
    t.text('code').notNullable().defaultTo(knex.raw(`'P' || lpad(nextval('publishers_code_seq')::text, 8, '0')`));
    t.text('name').notNullable();
    t.text('ipi');
    t.text('society');
    t.boolean('controlled').notNullable().defaultTo(true);
    member(t);
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'code']);
    t.check(`ipi ~ '^[0-9]{11}$'`, [], 'publishers_ipi_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX publishers_ipi_idx ON publishers (tenant_id, ipi) WHERE ipi IS NOT NULL`);
  await enableTenantRls(knex, 'publishers');

  // The submitter's work number of CWR (at most 14 characters): given, or RW + 12 digits.
  await knex.raw(`CREATE SEQUENCE works_code_seq`);
  await knex.schema.createTable('works', (t) => {
    party(t);
    t.text('title').notNullable();
    t.text('iswc'); // compact: T + 10 digits, check digit verified
    t.text('code').notNullable().defaultTo(knex.raw(`'RW' || lpad(nextval('works_code_seq')::text, 12, '0')`));
    t.text('language'); // ISO 639-1
    t.integer('duration'); // seconds
    // How each right is divided between the writers' side and the publishers' side (percent).
    t.decimal('performance_writers', 5, 2).notNullable().defaultTo(50);
    t.decimal('performance_publishers', 5, 2).notNullable().defaultTo(50);
    t.decimal('mechanical_writers', 5, 2).notNullable().defaultTo(0);
    t.decimal('mechanical_publishers', 5, 2).notNullable().defaultTo(100);
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'code']);
    t.check(`iswc ~ '^T[0-9]{10}$'`, [], 'works_iswc_check');
    t.check(`performance_writers + performance_publishers = 100 AND performance_publishers <= 50`, [], 'works_performance_check');
    t.check(`mechanical_writers + mechanical_publishers = 100`, [], 'works_mechanical_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX works_iswc_idx ON works (tenant_id, iswc) WHERE iswc IS NOT NULL`);
  await knex.raw(`CREATE INDEX works_title_idx ON works (tenant_id, lower(title))`);
  await enableTenantRls(knex, 'works');

  const ofWork = (t: Knex.CreateTableBuilder) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('work_id').notNullable();
    t.foreign(['tenant_id', 'work_id']).references(['tenant_id', 'id']).inTable('works').onDelete('CASCADE');
  };

  await knex.schema.createTable('work_titles', (t) => {
    ofWork(t);
    t.integer('position').notNullable();
    t.text('title').notNullable();
    t.text('type').notNullable().defaultTo('AT'); // CWR title type: AT alternative, TE first line, …
    t.text('language');
    t.primary(['tenant_id', 'work_id', 'position']);
  });
  await knex.raw(`CREATE INDEX work_titles_title_idx ON work_titles (tenant_id, lower(title))`);
  await enableTenantRls(knex, 'work_titles');

  // Shares in percent of the whole work: performance_share and mechanical_share are what the
  // party collects (the writers' side split by share, to the cent; CWR's PR and MR shares).
  await knex.schema.createTable('work_writers', (t) => {
    ofWork(t);
    t.uuid('writer_id').notNullable();
    t.integer('position').notNullable();
    t.text('role').notNullable();
    t.decimal('share', 9, 6).notNullable(); // of the writers' side; the writers' shares sum to 100
    t.decimal('performance_share', 5, 2).notNullable();
    t.decimal('mechanical_share', 5, 2).notNullable();
    t.uuid('publisher_id'); // the publisher representing this writer on this work (CWR PWR)
    t.primary(['tenant_id', 'work_id', 'writer_id']);
    t.foreign(['tenant_id', 'writer_id']).references(['tenant_id', 'id']).inTable('writers').onDelete('RESTRICT');
    t.foreign(['tenant_id', 'publisher_id']).references(['tenant_id', 'id']).inTable('publishers').onDelete('RESTRICT');
    t.check(`role IN ('composer','lyricist','composer_lyricist','arranger','adapter','translator')`, [], 'work_writers_role_check');
  });
  await knex.raw(`CREATE INDEX work_writers_writer_idx ON work_writers (tenant_id, writer_id)`);
  await enableTenantRls(knex, 'work_writers');

  await knex.schema.createTable('work_publishers', (t) => {
    ofWork(t);
    t.uuid('publisher_id').notNullable();
    t.integer('position').notNullable();
    t.text('role').notNullable().defaultTo('original');
    t.decimal('share', 9, 6).notNullable(); // of the publishers' side; the publishers' shares sum to 100
    t.decimal('performance_share', 5, 2).notNullable();
    t.decimal('mechanical_share', 5, 2).notNullable();
    t.primary(['tenant_id', 'work_id', 'publisher_id']);
    t.foreign(['tenant_id', 'publisher_id']).references(['tenant_id', 'id']).inTable('publishers').onDelete('RESTRICT');
    t.check(`role IN ('original','administrator','sub_publisher')`, [], 'work_publishers_role_check');
  });
  await knex.raw(`CREATE INDEX work_publishers_publisher_idx ON work_publishers (tenant_id, publisher_id)`);
  await enableTenantRls(knex, 'work_publishers');

  await knex.schema.createTable('work_recordings', (t) => {
    ofWork(t);
    t.uuid('asset_id').notNullable();
    t.primary(['tenant_id', 'work_id', 'asset_id']);
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX work_recordings_asset_idx ON work_recordings (tenant_id, asset_id)`);
  await enableTenantRls(knex, 'work_recordings');

  await knex.schema.createTable('publishing_agreements', (t) => {
    party(t);
    t.uuid('publisher_id').notNullable();
    t.uuid('writer_id').notNullable();
    t.specificType('territories', 'text[]').notNullable(); // ISO 3166-1 alpha-2 codes, or WORLD
    t.date('start_date').notNullable();
    t.date('end_date');
    t.decimal('writer_share', 9, 6).notNullable(); // percent of the publisher's receipts paid to the writer
    t.decimal('advance', 28, 12);
    t.text('currency');
    t.text('status').notNullable().defaultTo('draft');
    t.timestamp('status_changed_at', { useTz: true });
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'publisher_id']).references(['tenant_id', 'id']).inTable('publishers').onDelete('RESTRICT');
    t.foreign(['tenant_id', 'writer_id']).references(['tenant_id', 'id']).inTable('writers').onDelete('RESTRICT');
    t.check(`status IN ('draft','pending','active','expired','terminated')`, [], 'publishing_agreements_status_check');
    t.check(`end_date IS NULL OR end_date >= start_date`, [], 'publishing_agreements_dates_check');
  });
  await knex.raw(`CREATE INDEX publishing_agreements_writer_idx ON publishing_agreements (tenant_id, writer_id, status)`);
  await enableTenantRls(knex, 'publishing_agreements');

  // A CWR file written by GET /registrations/export (kept: acknowledgements refer to it).
  await knex.schema.createTable('cwr_submissions', (t) => {
    party(t);
    t.text('version').notNullable();
    t.text('filename').notNullable();
    t.text('content').notNullable();
    t.integer('transaction_count').notNullable();
    t.integer('record_count').notNullable();
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'filename']);
    t.check(`version IN ('2.1','2.2')`, [], 'cwr_submissions_version_check');
  });
  await enableTenantRls(knex, 'cwr_submissions');

  await knex.schema.createTable('work_registrations', (t) => {
    party(t);
    t.uuid('work_id').notNullable();
    t.text('society').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.text('transaction_type'); // NWR or REV, set when written to a CWR file
    t.uuid('submission_id');
    t.integer('transaction_seq'); // its transaction number in that file
    t.text('society_work_id'); // the society's own work number, from the acknowledgement
    t.text('message'); // why the society rejected it
    t.timestamp('queued_at', { useTz: true });
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('acknowledged_at', { useTz: true });
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'work_id']).references(['tenant_id', 'id']).inTable('works').onDelete('CASCADE');
    t.check(`status IN ('pending','queued','submitted','registered','rejected')`, [], 'work_registrations_status_check');
  });
  await knex.raw(`ALTER TABLE work_registrations ADD CONSTRAINT work_registrations_submission_fk FOREIGN KEY (tenant_id, submission_id)
    REFERENCES cwr_submissions (tenant_id, id) ON DELETE SET NULL (submission_id)`);
  await knex.raw(`CREATE INDEX work_registrations_work_idx ON work_registrations (tenant_id, work_id)`);
  await knex.raw(`CREATE INDEX work_registrations_status_idx ON work_registrations (tenant_id, status)`);
  await enableTenantRls(knex, 'work_registrations');

  await knex.schema.createTable('work_claims', (t) => {
    party(t);
    t.uuid('work_id').notNullable();
    t.uuid('registration_id');
    t.text('claimant').notNullable(); // the other party's name
    t.text('claimant_ipi');
    t.text('society');
    t.text('right').notNullable().defaultTo('all');
    t.decimal('share', 9, 6);
    t.text('status').notNullable().defaultTo('open');
    t.text('note');
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'work_id']).references(['tenant_id', 'id']).inTable('works').onDelete('CASCADE');
    t.check(`"right" IN ('performance','mechanical','all')`, [], 'work_claims_right_check');
    t.check(`status IN ('open','disputed','resolved','withdrawn')`, [], 'work_claims_status_check');
  });
  await knex.raw(`ALTER TABLE work_claims ADD CONSTRAINT work_claims_registration_fk FOREIGN KEY (tenant_id, registration_id)
    REFERENCES work_registrations (tenant_id, id) ON DELETE SET NULL (registration_id)`);
  await knex.raw(`CREATE INDEX work_claims_work_idx ON work_claims (tenant_id, work_id)`);
  await enableTenantRls(knex, 'work_claims');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'work_claims', 'work_registrations', 'cwr_submissions', 'publishing_agreements', 'work_recordings', 'work_publishers',
    'work_writers', 'work_titles', 'works', 'publishers', 'writers',
  ]) await knex.schema.dropTableIfExists(t);
  for (const s of ['works_code_seq', 'publishers_code_seq', 'writers_code_seq']) await knex.raw(`DROP SEQUENCE IF EXISTS ??`, [s]);
}
