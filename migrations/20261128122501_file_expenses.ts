import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Cost, recharge and fee rows of statements recorded as expenses (docs/patterns.md, rows and
 * row kinds `expense`; docs/money.md, "Expenses from statements").
 *
 * - file_expense_lines: the expense rows a file's read found (its ingest writes them in the same
 *   transaction as its lines, replacing any earlier ones): line number, the recording and
 *   product identifiers, title, month, amount (positive) and currency.
 * - expenses.file_id / file_line_no: an expense made from such a row. After each allocation of
 *   the file the expenses are made again from its rows (the recording's payees by their split
 *   shares); deleting the file removes them. Never typed in by a person.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_expense_lines', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('file_id').notNullable();
    t.integer('line_no').notNullable();
    t.text('isrc');
    t.text('upc');
    t.text('title');
    t.date('sale_month');
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.primary(['tenant_id', 'file_id', 'line_no']);
    t.foreign(['tenant_id', 'file_id']).references(['tenant_id', 'id']).inTable('files').onDelete('CASCADE');
    t.check('amount > 0', [], 'file_expense_lines_amount_check');
  });
  await enableTenantRls(knex, 'file_expense_lines');
  await knex.raw(`ALTER TABLE expenses ADD COLUMN file_id uuid, ADD COLUMN file_line_no integer`);
  await knex.raw(`ALTER TABLE expenses ADD CONSTRAINT expenses_file_fk FOREIGN KEY (tenant_id, file_id) REFERENCES files (tenant_id, id) ON DELETE CASCADE`);
  await knex.raw(`ALTER TABLE expenses ADD CONSTRAINT expenses_file_line_check CHECK ((file_id IS NULL) = (file_line_no IS NULL))`);
  await knex.raw(`CREATE INDEX expenses_file_idx ON expenses (tenant_id, file_id) WHERE file_id IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS expenses_file_idx`);
  await knex.raw(`ALTER TABLE expenses DROP CONSTRAINT IF EXISTS expenses_file_line_check, DROP CONSTRAINT IF EXISTS expenses_file_fk, DROP COLUMN IF EXISTS file_line_no, DROP COLUMN IF EXISTS file_id`);
  await knex.schema.dropTableIfExists('file_expense_lines');
}
