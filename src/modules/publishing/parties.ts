/**
 * Writers and publishers (docs/publishing.md): the parties of works and agreements. Both
 * carry an IPI name number (check digits verified, unique in the workspace), a society, a
 * `controlled` flag and optionally the member who is paid. A party still named on a work or
 * an agreement is not deleted.
 */
import type { Trx } from '../../db';
import type { BulkDeleteResult, CrudService } from '../../http/crud';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { existingMembers, iso, oneDeleted } from '../money/common';
import { normaliseIpi } from './identifiers';
import { likeOf, pageOf } from './paging';
import { WRITER_SORT, PUBLISHER_SORT } from './sorts';

export type PartyKind = 'writer' | 'publisher';

export interface PartyInput {
  firstName?: string | null;
  lastName?: string;
  name?: string;
  ipi?: string | null;
  society?: string | null;
  controlled?: boolean;
  user?: string | null;
}

const TABLE = { writer: 'writers', publisher: 'publishers' } as const;
const NOUN = { writer: 'Writer', publisher: 'Publisher' } as const;
/** Where a party is still named: a delete is refused while any of these hold it. */
const USED_BY = {
  writer: [['work_writers', 'writer_id', 'works'], ['publishing_agreements', 'writer_id', 'agreements']],
  publisher: [['work_publishers', 'publisher_id', 'works'], ['work_writers', 'publisher_id', 'works (as a writer\'s publisher)'], ['publishing_agreements', 'publisher_id', 'agreements']],
} as const;


export function partyView(kind: PartyKind, r: Record<string, unknown>) {
  const common = {
    id: r.id as string, code: r.code as string, ipi: (r.ipi as string | null) ?? null, society: (r.society as string | null) ?? null,
    controlled: r.controlled as boolean, user: (r.tenant_user_id as string | null) ?? null, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
  return kind === 'writer' ? { ...common, firstName: (r.first_name as string | null) ?? null, lastName: r.last_name as string } : { ...common, name: r.name as string };
}

async function columns(trx: Trx, kind: PartyKind, input: PartyInput): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> = {};
  if (input.ipi !== undefined) {
    const ipi = input.ipi === null ? null : normaliseIpi(input.ipi);
    if (input.ipi !== null && !ipi) throw new ValidationError('Invalid IPI name number', ['body.ipi must be an IPI name number: 11 digits whose last two are the check digits of the first nine']);
    row.ipi = ipi;
  }
  if (input.society !== undefined) row.society = input.society;
  if (input.controlled !== undefined) row.controlled = input.controlled;
  if (input.user !== undefined) {
    if (input.user !== null && !(await existingMembers(trx, [input.user])).has(input.user)) {
      throw new ValidationError('Invalid user', [`body.user ${input.user} is not a member of this workspace`]);
    }
    row.tenant_user_id = input.user;
  }
  if (kind === 'writer') {
    if (input.firstName !== undefined) row.first_name = input.firstName;
    if (input.lastName !== undefined) row.last_name = input.lastName;
  } else if (input.name !== undefined) row.name = input.name;
  return row;
}

async function assertIpiFree(trx: Trx, kind: PartyKind, ipi: unknown, except?: string) {
  if (!ipi) return;
  const q = trx(TABLE[kind]).where({ ipi });
  if (except) q.whereNot({ id: except });
  if (await q.first('id')) throw new ValidationError(`A ${kind} with IPI ${String(ipi)} already exists in this workspace`, [`body.ipi ${String(ipi)} is already used`], 'DUPLICATE');
}

export function partyService(kind: PartyKind): CrudService<{ search?: string; society?: string; controlled?: boolean }, PartyInput, PartyInput> {
  const table = TABLE[kind];
  const noun = NOUN[kind];
  const get = async (trx: Trx, id: string) => {
    const r = await trx(table).where({ id }).first();
    if (!r) throw new NotFoundError(noun);
    return r as Record<string, unknown>;
  };
  const remove = async (trx: Trx, ids: string[]): Promise<BulkDeleteResult> => {
    const found = new Set((await trx(table).whereIn('id', ids).select('id')).map((r) => r.id as string));
    const used = new Map<string, string>();
    for (const [t, col, what] of USED_BY[kind]) {
      for (const r of await trx(t).whereIn(col, [...found]).distinct(col)) if (!used.has(r[col])) used.set(r[col], `${noun} is still named on ${what}; remove it there first`);
    }
    const free = [...found].filter((id) => !used.has(id));
    if (free.length) await trx(table).whereIn('id', free).delete();
    const failedDeletions = ids.filter((id) => !free.includes(id)).map((id) => ({ id, error: used.get(id) ?? `${noun} not found` }));
    return { message: `${free.length} ${kind}(s) deleted`, processedCount: free.length, failedDeletions };
  };
  return {
    async list(trx, _auth, q) {
      const base = trx(table).modify((b) => {
        if (q.society) b.where({ society: q.society });
        if (q.controlled !== undefined) b.where({ controlled: q.controlled });
        if (q.search) {
          const like = likeOf(q.search);
          const name = kind === 'writer' ? `lower(coalesce(first_name, '') || ' ' || last_name)` : 'lower(name)';
          b.where((w) => w.whereRaw(`${name} LIKE ?`, [like]).orWhere('ipi', q.search!));
        }
      });
      const { rows, total } = await pageOf(base, q, kind === 'writer' ? { cols: WRITER_SORT, default: 'lastName' } : { cols: PUBLISHER_SORT, default: 'name' });
      return { data: rows.map((r) => partyView(kind, r)), total };
    },
    async get(trx, _auth, id) {
      return partyView(kind, await get(trx, id));
    },
    async create(trx, _auth: AuthContext, input) {
      const row = await columns(trx, kind, input);
      await assertIpiFree(trx, kind, row.ipi);
      const [r] = await trx(table).insert({ ...row, tenant_id: trx.raw('app_tenant_id()') }).returning('*');
      return partyView(kind, r);
    },
    async update(trx, _auth, id, patch) {
      await get(trx, id);
      const row = await columns(trx, kind, patch);
      await assertIpiFree(trx, kind, row.ipi, id);
      const [r] = await trx(table).where({ id }).update({ ...row, updated_at: trx.fn.now() }).returning('*');
      return partyView(kind, r);
    },
    async remove(trx, _auth, id) {
      oneDeleted(await remove(trx, [id]), noun, 'IN_USE');
    },
    bulkRemove: (trx, _auth, ids) => remove(trx, ids),
  };
}
