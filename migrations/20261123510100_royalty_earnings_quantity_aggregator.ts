import type { Knex } from 'knex';

/**
 * Earnings carry every dimension the rollups and a member's analytics group by: besides the
 * line's sale month, catalogue, DSP, country and sale type (already copied at allocation),
 * now its quantity and aggregator too. A file's member rollups and a member's crossed
 * request then read royalty_earnings alone instead of joining every earnings row back to its
 * line (measured: that join was most of aggregateFile). The copied values never go stale:
 * a line's quantity and aggregator do not change after ingest, and what can change (match,
 * DSP by rule) re-allocates the line, writing new earnings rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE royalty_earnings ADD COLUMN quantity numeric, ADD COLUMN aggregator text`);
  await knex.raw(
    `UPDATE royalty_earnings e SET quantity = l.quantity, aggregator = l.aggregator
       FROM royalty_lines l WHERE l.tenant_id = e.tenant_id AND l.file_id = e.file_id AND l.line_no = e.line_id`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE royalty_earnings DROP COLUMN quantity, DROP COLUMN aggregator`);
}
