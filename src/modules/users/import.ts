/**
 * POST /auth/importdata: a label moving to Rondo brings its people. A CSV of members (one row
 * each: e-mail, names, role, their artists) becomes invitations (as POST /auth/invite sends
 * them: the person chooses their own password) and artist links. Bad rows are reported by
 * line and the good ones kept; a re-upload of the same file adds nothing twice (a member
 * already in the workspace is not invited again, a link already there is not added again).
 * docs/auth.md documents the columns and the answer.
 */
import Papa from 'papaparse';
import { withTenant, type Trx } from '../../db';
import { ROLE_NAMES, type RoleName } from '../../lib/identity';
import { ValidationError } from '../../lib/errors';
import { compile, Email } from '../../http/schema';
import { inputProblems } from '../../http/limits';
import type { IdentityDeps } from '../auth/identity';
import { inviteMember } from './invitations';
import { artistsNamedAnyCase, existingIds } from '../../repositories/catalogue';

/** Largest import file, and most member rows in one. */
export const IMPORT_MAX_BYTES = 2 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 5000;
const NAME_MAX = 200;
/** Separators between the artists of one cell. */
const ARTIST_SEPARATORS = /[;|]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Column → the header spellings it accepts (compared without case, spaces, dashes and underscores). */
const COLUMNS = {
  email: ['email', 'emailaddress', 'mail'],
  firstName: ['firstname', 'givenname'],
  lastName: ['lastname', 'surname', 'familyname'],
  role: ['role'],
  artists: ['artists', 'artist', 'artistids', 'artistnames'],
} as const;
type Column = keyof typeof COLUMNS;

export type RowStatus = 'invited' | 'existing' | 'error';

export interface RowResult {
  /** Line of the file where the row starts (the header is line 1). */
  line: number;
  email: string | null;
  /** invited: a new member, invitation e-mailed (dry run: would be); existing: already a member (not invited again); error: nothing of the row was written. */
  status: RowStatus;
  role: RoleName | null;
  /** Artist links this row added (dry run: would add). */
  artistsLinked: number;
  errors: string[];
}

export interface ImportResult {
  dryRun: boolean;
  rows: number;
  invited: number;
  existing: number;
  failed: number;
  artistsLinked: number;
  /** Header cells that are none of the documented columns (their values are not read). */
  ignoredColumns: string[];
  results: RowResult[];
}

interface ParsedRow {
  line: number;
  values: Partial<Record<Column, string>>;
}

const norm = (h: string) => h.toLowerCase().replace(/[\s_-]/g, '');
const emailOk = compile(Email, 'body');

/** The header's columns and every record with the line it starts on. Whole-file problems are a 400. */
export function parseMemberCsv(data: Buffer): { rows: ParsedRow[]; ignoredColumns: string[] } {
  const text = data.toString('utf8').replace(/^\uFEFF/, '');
  if (text.includes('\u0000')) throw new ValidationError('The file is not a CSV text file', ['file: it holds NUL bytes'], 'INVALID_FILE');
  const records: { cells: string[]; start: number }[] = [];
  let start = 0;
  Papa.parse<string[]>(text, {
    skipEmptyLines: false,
    step: (r) => {
      records.push({ cells: r.data, start });
      start = r.meta.cursor;
    },
  });
  // a record starts on the line after the newlines before it (papaparse's cursor ends past a record's newline)
  let seen = 0;
  let line = 1;
  const withLines = records.map((r) => {
    for (; seen < r.start; seen++) if (text.charCodeAt(seen) === 10) line++;
    return { cells: r.cells, line };
  });
  const nonEmpty = withLines.filter((r) => r.cells.some((c) => c.trim() !== ''));
  const header = nonEmpty.shift();
  if (!header) throw new ValidationError('The file has no header row', ['file: the first line names the columns (email, firstName, lastName, role, artists)'], 'INVALID_FILE');
  const index: Partial<Record<Column, number>> = {};
  const ignoredColumns: string[] = [];
  header.cells.forEach((cell, i) => {
    const col = (Object.keys(COLUMNS) as Column[]).find((c) => (COLUMNS[c] as readonly string[]).includes(norm(cell)));
    if (col && index[col] === undefined) index[col] = i;
    else if (cell.trim()) ignoredColumns.push(cell.trim());
  });
  if (index.email === undefined) throw new ValidationError('The file has no email column', [`file: header line ${header.line} names no "email" column`], 'INVALID_FILE');
  if (nonEmpty.length > IMPORT_MAX_ROWS) throw new ValidationError(`At most ${IMPORT_MAX_ROWS} member rows per file`, [`file: ${nonEmpty.length} rows`], 'TOO_MANY_ROWS');
  const rows = nonEmpty.map((r) => ({
    line: r.line,
    values: Object.fromEntries((Object.entries(index) as [Column, number][]).map(([c, i]) => [c, (r.cells[i] ?? '').trim()])) as ParsedRow['values'],
  }));
  return { rows, ignoredColumns };
}

/** The artists a cell names (ids or names, exact and without case); problems for the unknown and the ambiguous. */
async function resolveArtists(trx: Trx, cells: string[]) {
  const wanted = [...new Set(cells.flatMap((c) => c.split(ARTIST_SEPARATORS)).map((s) => s.trim()).filter(Boolean))];
  const ids = wanted.filter((w) => UUID.test(w)).map((w) => w.toLowerCase());
  const names = wanted.filter((w) => !UUID.test(w)).map((w) => w.toLowerCase());
  const byId = new Set<string>(await existingIds(trx, 'artists', ids));
  const byName = new Map<string, string[]>();
  for (const a of await artistsNamedAnyCase(trx, names)) {
    const k = a.name.toLowerCase();
    byName.set(k, [...(byName.get(k) ?? []), a.id]);
  }
  return (cell: string): { ids: string[]; problems: string[] } => {
    const out: string[] = [];
    const problems: string[] = [];
    for (const w of cell.split(ARTIST_SEPARATORS).map((s) => s.trim()).filter(Boolean)) {
      if (UUID.test(w)) {
        if (byId.has(w.toLowerCase())) out.push(w.toLowerCase());
        else problems.push(`artists: no artist with id ${w} in this workspace`);
        continue;
      }
      const found = byName.get(w.toLowerCase()) ?? [];
      if (found.length === 1) out.push(found[0]!);
      else if (!found.length) problems.push(`artists: no artist named "${w}" in this workspace`);
      else problems.push(`artists: ${found.length} artists are named "${w}"; give the id instead (${found.join(', ')})`);
    }
    return { ids: [...new Set(out)], problems };
  };
}

/** Problems of one row's own values (no database). */
function rowProblems(v: ParsedRow['values'], mayAddOwners: boolean): string[] {
  const problems = inputProblems(v, 'row').map((p) => p.replace(/^row\./, ''));
  if (problems.length) return problems;
  if (!v.email) problems.push('email: required');
  else if (!emailOk(v.email)) problems.push(`email: "${v.email}" is not an e-mail address`);
  for (const c of ['firstName', 'lastName'] as const) if ((v[c] ?? '').length > NAME_MAX) problems.push(`${c}: longer than ${NAME_MAX} characters`);
  const role = (v.role || 'user').toLowerCase();
  if (!(ROLE_NAMES as readonly string[]).includes(role)) problems.push(`role: must be one of ${ROLE_NAMES.join(', ')} (got "${v.role}")`);
  else if (role === 'owner' && !mayAddOwners) problems.push('role: only an owner can add an owner');
  return problems;
}

/**
 * Imports the parsed rows into the caller's tenant transaction: each good row in a savepoint
 * (one bad row never undoes the others). `dryRun`: the same checks, nothing written, no e-mail.
 */
export async function importMembers(d: IdentityDeps, trx: Trx, tenantId: number, data: Buffer, o: { dryRun: boolean; mayAddOwners: boolean }): Promise<ImportResult> {
  const { rows, ignoredColumns } = parseMemberCsv(data);
  const artistsOf = await resolveArtists(trx, rows.map((r) => r.values.artists ?? ''));
  const emails = rows.map((r) => (r.values.email ?? '').toLowerCase()).filter(Boolean);
  const members = new Map<string, string>(
    (await trx('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').whereRaw('lower(u.email) = ANY(?::text[])', [emails]).select('u.email', 'tu.id')).map((m) => [String(m.email).toLowerCase(), m.id as string]),
  );
  const firstLine = new Map<string, number>();
  const results: RowResult[] = [];
  for (const r of rows) {
    const v = r.values;
    const email = v.email || null;
    const problems = rowProblems(v, o.mayAddOwners);
    const key = (email ?? '').toLowerCase();
    if (key && firstLine.has(key)) problems.push(`email: ${email} is already on line ${firstLine.get(key)}`);
    else if (key) firstLine.set(key, r.line);
    const artists = artistsOf(v.artists ?? '');
    problems.push(...artists.problems);
    const role = (ROLE_NAMES as readonly string[]).includes((v.role || 'user').toLowerCase()) ? ((v.role || 'user').toLowerCase() as RoleName) : null;
    if (problems.length) {
      results.push({ line: r.line, email, status: 'error', role, artistsLinked: 0, errors: problems });
      continue;
    }
    const existing = members.get(key);
    try {
      const linked = await trx.transaction(async (sp) => {
        let memberId = existing;
        if (!memberId && !o.dryRun) memberId = (await inviteMember(d, sp, tenantId, { email: email!, role: role!, firstName: v.firstName || undefined, lastName: v.lastName || undefined })).id as string;
        if (!memberId) return artists.ids.length; // dry run of a new member: every link is new
        const have = new Set<string>(await sp('artist_users').where({ tenant_user_id: memberId }).whereIn('artist_id', artists.ids).pluck('artist_id'));
        const add = artists.ids.filter((a) => !have.has(a));
        if (add.length && !o.dryRun) await sp('artist_users').insert(add.map((artist_id) => ({ tenant_id: tenantId, artist_id, tenant_user_id: memberId }))).onConflict(['tenant_id', 'artist_id', 'tenant_user_id']).ignore();
        return add.length;
      });
      results.push({ line: r.line, email, status: existing ? 'existing' : 'invited', role, artistsLinked: linked, errors: [] });
    } catch (err) {
      results.push({ line: r.line, email, status: 'error', role, artistsLinked: 0, errors: [(err as Error).message] });
    }
  }
  const count = (s: RowStatus) => results.filter((x) => x.status === s).length;
  return {
    dryRun: o.dryRun,
    rows: results.length,
    invited: count('invited'),
    existing: count('existing'),
    failed: count('error'),
    artistsLinked: results.reduce((n, x) => n + x.artistsLinked, 0),
    ignoredColumns,
    results,
  };
}

/** `dryRun` as a form field or query value: true/false/1/0 (anything else is a 400 naming it). */
export function dryRunOf(v: unknown, where: string): boolean {
  if (v === undefined || v === '' || v === false) return false;
  if (v === true) return true;
  const s = String(v).toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  throw new ValidationError('Invalid request', [`${where} must be true or false`]);
}

/** The route's entry: the received file imported in one tenant transaction. */
export function importMembersFile(d: IdentityDeps, tenantId: number, data: Buffer, o: { dryRun: boolean; mayAddOwners: boolean }): Promise<ImportResult> {
  return withTenant(d.db.app, tenantId, (trx) => importMembers(d, trx, tenantId, data, o));
}
