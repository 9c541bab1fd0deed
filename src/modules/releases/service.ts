/**
 * Releases and tracks. Status moves (anything else is 400 ILLEGAL_STATUS_MOVE):
 *
 *   draft     --submit (user+, needs ≥1 track)-->            submitted
 *   rejected  --submit (resubmit)-->                          submitted
 *   submitted --review {status:in_review} (admin)-->          in_review
 *   submitted | in_review --review {approved|rejected}-->     approved | rejected
 *   submitted | in_review --feedback {requestChanges:true} (admin)--> draft
 *
 * Editing (release fields, tracks, media) is allowed in draft and rejected only; approved
 * releases are final. Every move and every feedback message is kept in release_events.
 */
import { sortColumns } from '../../http/list-sort';
import type { Trx } from '../../db';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { dateOnly, iso, pageList, type ListQuery } from '../catalogue/common';
import { normaliseIsrc, parseUpc } from '../catalogue/identifiers';
import type { AuthContext } from '../../lib/identity';
import { ownOnly, rankOf, ROLE_RANK } from '../../domain/roles';
import type { Knex } from 'knex';
import { fillNewRelease } from '../defaultsettings/fill';
import { notify as notifyMember } from '../notifications/service';
import { emitEvent } from '../webhooks/events';
import { trackMediaView } from './media';
import { catalogueRow, existingIds } from '../../repositories/catalogue';

export const RELEASE_STATUSES = ['draft', 'submitted', 'in_review', 'approved', 'rejected'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];
export const EDITABLE_STATUSES: string[] = ['draft', 'rejected'];
const EDITABLE = EDITABLE_STATUSES as ReleaseStatus[];

export interface ReleaseInput {
  title: string;
  artistName?: string | null;
  artist?: string | null;
  product?: string | null;
  type?: string;
  format?: string;
  releaseDate?: string | null;
  upc?: string | null;
  label?: string | null;
  genre?: string[];
  metadata?: Record<string, unknown>;
  tracks?: TrackInput[];
}
export interface TrackInput {
  title: string;
  asset?: string | null;
  isrc?: string | null;
  position?: number;
  explicit?: boolean;
  metadata?: Record<string, unknown>;
}

function releaseView(r: Record<string, unknown>, tracks: Record<string, unknown>[] = []) {
  return {
    id: r.id as string,
    title: r.title as string,
    artistName: (r.artist_name as string) ?? null,
    artist: (r.artist_id as string) ?? null,
    product: (r.product_id as string) ?? null,
    type: r.type as string,
    format: r.format as string,
    status: r.status as ReleaseStatus,
    releaseDate: dateOnly(r.release_date),
    upc: (r.upc as string) ?? null,
    label: (r.label as string) ?? null,
    genre: (r.genre as string[]) ?? [],
    metadata: r.metadata ?? {},
    createdBy: (r.created_by as string) ?? null,
    submittedAt: iso(r.submitted_at),
    reviewedAt: iso(r.reviewed_at),
    reviewedBy: (r.reviewed_by as string) ?? null,
    /** The distributor's word on it (its signed deliveries: src/modules/distributor/webhook.ts). */
    delivery: { status: (r.delivery_status as string) ?? null, message: (r.delivery_message as string) ?? null, at: iso(r.delivery_at) },
    tracks: tracks.map(trackView),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export function trackView(t: Record<string, unknown>) {
  return {
    id: t.id as string,
    release: t.release_id as string,
    asset: (t.asset_id as string) ?? null,
    title: t.title as string,
    isrc: (t.isrc as string) ?? null,
    position: t.position as number,
    explicit: !!t.explicit,
    metadata: t.metadata ?? {},
    createdAt: iso(t.created_at)!,
    updatedAt: iso(t.updated_at)!,
  };
}

async function row(trx: Trx, id: string) {
  const r = await trx('releases').where({ id }).first();
  if (!r) throw new NotFoundError('Release', 'RELEASE_NOT_FOUND');
  return r;
}

/**
 * The releases a member below admin sees (the role matrix, docs/auth.md): those they created
 * and those of their own artists. Admins and owners see every release.
 */
function visibleTo(auth: AuthContext) {
  const own = ownOnly(auth);
  return (b: Knex.QueryBuilder) => {
    if (own !== null) b.where((w) => w.where('r.created_by', own).orWhereIn('r.artist_id', (s) => s.select('artist_id').from('artist_users').where('tenant_user_id', own)));
  };
}

/** 404 (as if absent) for a release the caller does not see. */
export async function assertReleaseVisible(trx: Trx, auth: AuthContext, id: string): Promise<void> {
  if (!(await trx('releases as r').where('r.id', id).modify(visibleTo(auth)).first('r.id'))) throw new NotFoundError('Release', 'RELEASE_NOT_FOUND');
}

export async function getRelease(trx: Trx, id: string) {
  const r = await row(trx, id);
  const tracks = await trx('tracks').where({ release_id: id }).orderBy(['position', 'created_at']);
  return releaseView(r, tracks);
}

function releaseRow(p: Partial<ReleaseInput>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  const map: Record<string, string> = { title: 'title', artistName: 'artist_name', artist: 'artist_id', product: 'product_id', type: 'type', format: 'format', releaseDate: 'release_date', label: 'label', genre: 'genre', metadata: 'metadata' };
  for (const [k, c] of Object.entries(map)) if ((p as Record<string, unknown>)[k] !== undefined) r[c] = (p as Record<string, unknown>)[k];
  if (p.upc !== undefined) {
    if (!p.upc) r.upc = null;
    else {
      const u = parseUpc(p.upc);
      if ('error' in u) throw new ValidationError('Invalid UPC', [u.error], 'INVALID_UPC');
      r.upc = u.upc;
    }
  }
  return r;
}

async function checkRefs(trx: Trx, p: Partial<ReleaseInput>) {
  if (p.artist && !(await existingIds(trx, 'artists', [p.artist])).length) throw new ValidationError('Unknown artist', [`artist ${p.artist} does not exist`], 'UNKNOWN_ARTIST');
  if (p.product && !(await existingIds(trx, 'products', [p.product])).length) throw new ValidationError('Unknown product', [`product ${p.product} does not exist`], 'UNKNOWN_PRODUCT');
}

async function notify(trx: Trx, tenantId: number, auth: AuthContext, n: { type: string; title: string; content: string; resourceType: string; resourceId: string; actionUrl: string; metadata: Record<string, unknown> }) {
  await notifyMember(trx, { tenantId, tenantUserId: auth.tenantUserId, ...n });
}

function releaseMeta(r: Record<string, unknown>) {
  return { type: r.type, format: r.format, status: r.status, artistName: r.artist_name ?? null, releaseTitle: r.title };
}

export async function createRelease(trx: Trx, tenantId: number, auth: AuthContext, p: ReleaseInput) {
  await checkRefs(trx, p);
  const data = releaseRow(p);
  if (p.artist && !p.artistName) data.artist_name = (await catalogueRow(trx, 'artists', p.artist, ['name']))!.name;
  const [r] = await trx('releases').insert({ tenant_id: tenantId, ...data, created_by: auth.tenantUserId }).returning('*');
  await fillNewRelease(trx, tenantId, auth.tenantUserId, r.id, p); // content defaults fill what was not given
  await notify(trx, tenantId, auth, {
    type: 'release.created', title: `Release "${r.title}" created`, content: `${r.artist_name ?? 'A release'} — ${r.title} was created as a draft.`,
    resourceType: 'release', resourceId: r.id, actionUrl: `/releases/${r.id}`, metadata: releaseMeta(r),
  });
  for (const t of p.tracks ?? []) await addTrack(trx, tenantId, auth, r.id, t, true);
  return getRelease(trx, r.id);
}

function assertEditable(r: Record<string, unknown>) {
  if (!EDITABLE.includes(r.status as ReleaseStatus)) throw new ValidationError(`A ${r.status} release cannot be edited`, [`editable statuses: ${EDITABLE.join(', ')}`], 'RELEASE_LOCKED');
}

export async function updateRelease(trx: Trx, id: string, p: Partial<ReleaseInput>) {
  const r = await row(trx, id);
  assertEditable(r);
  await checkRefs(trx, p);
  await trx('releases').where({ id }).update({ ...releaseRow(p), updated_at: clock.now() });
  return getRelease(trx, id);
}

export async function addTrack(trx: Trx, tenantId: number, auth: AuthContext, releaseId: string, t: TrackInput, skipCheck = false) {
  const r = await row(trx, releaseId);
  if (!skipCheck) assertEditable(r);
  let isrc: string | null = null;
  if (t.isrc) {
    isrc = normaliseIsrc(t.isrc);
    if (!isrc) throw new ValidationError('Invalid ISRC', [`ISRC "${t.isrc}" is not of the form CC-XXX-YY-NNNNN`], 'INVALID_ISRC');
  }
  if (t.asset) {
    const a = await catalogueRow(trx, 'assets', t.asset, ['id', 'isrc']);
    if (!a) throw new ValidationError('Unknown asset', [`asset ${t.asset} does not exist`], 'UNKNOWN_ASSET');
    isrc ??= a.isrc;
  }
  const [{ n }] = await trx('tracks').where({ release_id: releaseId }).max<{ n: number | null }[]>({ n: 'position' });
  const [tr] = await trx('tracks')
    .insert({ tenant_id: tenantId, release_id: releaseId, asset_id: t.asset ?? null, title: t.title, isrc, position: t.position ?? (n ?? 0) + 1, explicit: !!t.explicit, metadata: t.metadata ?? {} })
    .returning('*');
  await notify(trx, tenantId, auth, {
    type: 'track.created', title: `Track "${tr.title}" added to "${r.title}"`, content: `Track ${tr.position}: ${tr.title}`,
    resourceType: 'track', resourceId: tr.id, actionUrl: `/releases/${releaseId}/tracks/${tr.id}`, metadata: { ...releaseMeta(r), releaseId, trackTitle: tr.title },
  });
  return trackView(tr);
}

export async function updateTrack(trx: Trx, releaseId: string, trackId: string, t: Partial<TrackInput>) {
  assertEditable(await row(trx, releaseId));
  const cur = await trx('tracks').where({ id: trackId, release_id: releaseId }).first();
  if (!cur) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (t.title !== undefined) upd.title = t.title;
  if (t.position !== undefined) upd.position = t.position;
  if (t.explicit !== undefined) upd.explicit = t.explicit;
  if (t.metadata !== undefined) upd.metadata = t.metadata;
  if (t.isrc !== undefined) {
    upd.isrc = t.isrc ? normaliseIsrc(t.isrc) : null;
    if (t.isrc && !upd.isrc) throw new ValidationError('Invalid ISRC', [`ISRC "${t.isrc}" is not of the form CC-XXX-YY-NNNNN`], 'INVALID_ISRC');
  }
  if (t.asset !== undefined) {
    if (t.asset && !(await existingIds(trx, 'assets', [t.asset])).length) throw new ValidationError('Unknown asset', [`asset ${t.asset} does not exist`], 'UNKNOWN_ASSET');
    upd.asset_id = t.asset;
  }
  const [tr] = await trx('tracks').where({ id: trackId }).update(upd).returning('*');
  return trackView(tr);
}

export async function deleteTrack(trx: Trx, releaseId: string, trackId: string) {
  assertEditable(await row(trx, releaseId));
  if (!(await trx('tracks').where({ id: trackId, release_id: releaseId }).delete())) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
}

async function move(trx: Trx, tenantId: number, auth: AuthContext, r: Record<string, unknown>, to: ReleaseStatus, kind: string, message: string | null) {
  const upd: Record<string, unknown> = { status: to, updated_at: clock.now() };
  if (to === 'submitted') upd.submitted_at = clock.now();
  if (kind === 'review') Object.assign(upd, { reviewed_at: clock.now(), reviewed_by: auth.tenantUserId });
  await trx('releases').where({ id: r.id as string }).update(upd);
  await trx('release_events').insert({ tenant_id: tenantId, release_id: r.id, kind, from_status: r.status, to_status: to, message, author_id: auth.tenantUserId });
}

function illegal(from: string, to: string, allowed: string): never {
  throw new ValidationError(`Cannot move a release from ${from} to ${to}`, [allowed], 'ILLEGAL_STATUS_MOVE');
}

export async function submitRelease(trx: Trx, tenantId: number, auth: AuthContext, id: string, message?: string) {
  const r = await row(trx, id);
  if (!['draft', 'rejected'].includes(r.status)) illegal(r.status, 'submitted', 'submit works from draft or rejected');
  const [{ c }] = await trx('tracks').where({ release_id: id }).count<{ c: string }[]>({ c: '*' });
  if (Number(c) === 0) throw new ValidationError('A release needs at least one track to be submitted', [], 'NO_TRACKS');
  await move(trx, tenantId, auth, r, 'submitted', 'submit', message ?? null);
  await emitEvent(trx, tenantId, 'release.submitted', { releaseId: id, title: r.title, previousStatus: r.status, message: message ?? null });
  return getRelease(trx, id);
}

export async function reviewRelease(trx: Trx, tenantId: number, auth: AuthContext, id: string, to: 'in_review' | 'approved' | 'rejected', message?: string) {
  const r = await row(trx, id);
  const ok = (r.status === 'submitted' && ['in_review', 'approved', 'rejected'].includes(to)) || (r.status === 'in_review' && ['approved', 'rejected'].includes(to));
  if (!ok) illegal(r.status, to, 'review moves submitted → in_review | approved | rejected and in_review → approved | rejected');
  if (r.created_by) {
    await notifyMember(trx, {
      tenantId, tenantUserId: r.created_by, type: 'release.reviewed', title: `Release "${r.title}": ${to.replace('_', ' ')}`, content: message ?? '',
      resourceType: 'release', resourceId: r.id, actionUrl: `/releases/${r.id}`, isImportant: to === 'rejected', metadata: { ...releaseMeta(r), status: to, previousStatus: r.status, title: r.title, message: message ?? '' },
    });
  }
  await move(trx, tenantId, auth, r, to, 'review', message ?? null);
  await emitEvent(trx, tenantId, 'release.reviewed', { releaseId: id, title: r.title, previousStatus: r.status, status: to, message: message ?? null });
  return getRelease(trx, id);
}

export async function feedbackRelease(trx: Trx, tenantId: number, auth: AuthContext, id: string, message: string, requestChanges?: boolean) {
  const r = await row(trx, id);
  if (requestChanges) {
    if (rankOf(auth) < ROLE_RANK.admin) throw new ForbiddenError('Only admins can send a release back for changes', 'INSUFFICIENT_ROLE');
    if (!['submitted', 'in_review'].includes(r.status)) illegal(r.status, 'draft', 'changes can be requested on submitted or in_review releases');
    await move(trx, tenantId, auth, r, 'draft', 'feedback', message);
  } else {
    await trx('release_events').insert({ tenant_id: tenantId, release_id: id, kind: 'feedback', from_status: r.status, to_status: r.status, message, author_id: auth.tenantUserId });
  }
  const events = await trx('release_events').where({ release_id: id }).orderBy('created_at');
  return { release: await getRelease(trx, id), feedback: events.map(eventView) };
}

export function eventView(e: Record<string, unknown>) {
  return { id: e.id, kind: e.kind, fromStatus: e.from_status ?? null, toStatus: e.to_status ?? null, message: e.message ?? null, author: e.author_id ?? null, createdAt: iso(e.created_at) };
}

/** The fields the release list sorts by (the names its items show) and their columns; see http/list-sort. */
export const RELEASE_SORT = sortColumns({
  createdAt: 'r.created_at', updatedAt: 'r.updated_at', title: 'r.title', status: 'r.status', releaseDate: 'r.release_date', artistName: 'r.artist_name', upc: 'r.upc',
  type: 'r.type', format: 'r.format', label: 'r.label', genre: 'r.genre', createdBy: 'r.created_by', submittedAt: 'r.submitted_at', reviewedAt: 'r.reviewed_at', reviewedBy: 'r.reviewed_by',
});

export async function listReleases(trx: Trx, auth: AuthContext, q: ListQuery & { status?: string; artist?: string }) {
  const base = trx('releases as r').modify(visibleTo(auth)).modify((b) => {
    if (q.search) {
      const like = `%${q.search.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
      const u = parseUpc(q.search);
      b.where((w) => w.whereILike('r.title', like).orWhereILike('r.artist_name', like).orWhere('r.upc', 'upc' in u ? u.upc : ''));
    }
    if (q.status) b.where('r.status', q.status);
    if (q.artist) b.where('r.artist_id', q.artist);
  });
  const page = await pageList(base, q, RELEASE_SORT, 'createdAt', (b) => b.select('r.*'), 'r.id', (r) => releaseView(r));
  return page;
}

export async function releaseStats(trx: Trx, auth: AuthContext) {
  const rows = await trx('releases as r').modify(visibleTo(auth)).select('r.status').count<{ status: string; c: string }[]>({ c: '*' }).groupBy('r.status');
  const byStatus: Record<string, number> = Object.fromEntries(RELEASE_STATUSES.map((s) => [s, 0]));
  for (const r of rows) byStatus[r.status] = Number(r.c);
  const [{ c }] = await trx('tracks as t').whereIn('t.release_id', trx('releases as r').modify(visibleTo(auth)).select('r.id')).count<{ c: string }[]>({ c: '*' });
  return { total: Object.values(byStatus).reduce((a, b) => a + b, 0), byStatus, tracks: Number(c) };
}

/** Delete a release with its tracks and media records. */
export async function deleteRelease(trx: Trx, id: string): Promise<void> {
  if (!(await trx('releases').where({ id }).delete())) throw new NotFoundError('Release', 'RELEASE_NOT_FOUND');
}

/** Status moves and feedback of a release, oldest first. */
export async function releaseEvents(trx: Trx, id: string) {
  await getRelease(trx, id);
  return (await trx('release_events').where({ release_id: id }).orderBy('created_at')).map(eventView);
}

/** GET /releases/{id}/tracks: the tracks in order, each with its media record (or null). */
export async function listTracks(trx: Trx, id: string) {
  await row(trx, id);
  const tracks = await trx('tracks').where({ release_id: id }).orderBy(['position', 'created_at']);
  const media = await trx('track_media').where({ release_id: id });
  return tracks.map((t) => ({ ...trackView(t), media: ((m) => (m ? trackMediaView(m) : null))(media.find((m) => m.track_id === t.id)) }));
}

/** GET /releases/{id}/stats: one release in figures. */
export async function releaseStatsOf(trx: Trx, id: string) {
  const r = await row(trx, id);
  const { rows: [t] } = await trx.raw(
    `SELECT count(*)::int AS tracks, count(m.id)::int AS with_media, count(m.storage_key)::int AS uploaded, count(t.isrc)::int AS with_isrc,
            sum((m.metadata->>'duration')::numeric)::text AS duration
       FROM tracks t LEFT JOIN track_media m ON m.tenant_id = t.tenant_id AND m.track_id = t.id
      WHERE t.release_id = ?`,
    [id],
  );
  const [{ art }] = await trx('catalogue_media').where({ release_id: id }).count<{ art: string }[]>({ art: '*' });
  const [{ ev }] = await trx('release_events').where({ release_id: id }).count<{ ev: string }[]>({ ev: '*' });
  return {
    releaseId: id,
    status: r.status as ReleaseStatus,
    tracks: t.tracks as number,
    tracksWithMedia: t.with_media as number,
    tracksWithUploadedFile: t.uploaded as number,
    tracksWithIsrc: t.with_isrc as number,
    durationSeconds: t.duration == null ? null : Number(t.duration),
    artworkFiles: Number(art),
    feedback: Number(ev),
    submittedAt: iso(r.submitted_at),
    reviewedAt: iso(r.reviewed_at),
  };
}
