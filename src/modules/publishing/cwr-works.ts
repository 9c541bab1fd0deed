/** Works as a CWR file carries them (cwr/model.ts), read from the workspace's tables. */
import type { Trx } from '../../db';
import type { CwrWork } from './cwr/model';

const DESIGNATION: Record<string, string> = { composer: 'C', lyricist: 'A', composer_lyricist: 'CA', arranger: 'AR', adapter: 'AD', translator: 'TR' };
const PUBLISHER_TYPE: Record<string, string> = { original: 'E', administrator: 'AM', sub_publisher: 'SE' };

const ymd = (d: unknown) => (d instanceof Date ? `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}` : d ? String(d).slice(0, 10).replace(/-/g, '') : null);

/**
 * One CWR transaction per entry (a work may appear twice, for two societies). Synchronisation
 * (SR) shares are the mechanical shares; performers are the recordings' display artists.
 */
export async function cwrWorks(trx: Trx, entries: { work: string; type: 'NWR' | 'REV' }[]): Promise<CwrWork[]> {
  const ids = [...new Set(entries.map((e) => e.work))];
  const works = await trx('works').whereIn('id', ids);
  const titles = await trx('work_titles').whereIn('work_id', ids).orderBy('position');
  const writers = await trx('work_writers as ww').join('writers as w', 'w.id', 'ww.writer_id').whereIn('ww.work_id', ids).orderBy('ww.position')
      .select('ww.*', 'w.code', 'w.first_name', 'w.last_name', 'w.ipi', 'w.society', 'w.controlled', trx.raw('(SELECT p.code FROM publishers p WHERE p.id = ww.publisher_id) AS publisher_code'));
  const publishers = await trx('work_publishers as wp').join('publishers as p', 'p.id', 'wp.publisher_id').whereIn('wp.work_id', ids).orderBy('wp.position')
    .select('wp.*', 'p.code', 'p.name', 'p.ipi', 'p.society', 'p.controlled');
  const recordings = await trx('work_recordings as r').join('assets as a', 'a.id', 'r.asset_id').whereIn('r.work_id', ids).orderBy('a.isrc').orderBy('a.id')
      .select('r.work_id', 'a.isrc', 'a.title', 'a.display_artist',
        trx.raw('(SELECT min(p.release_date) FROM product_assets pa JOIN products p ON p.id = pa.product_id WHERE pa.asset_id = a.id) AS release_date'));
  const of = <T extends { work_id: string }>(rows: T[], id: string) => rows.filter((r) => r.work_id === id);
  const byId = new Map(works.map((w: Record<string, unknown>) => [w.id as string, w]));
  return entries.map(({ work: id, type }) => {
    const w = byId.get(id)!;
    const recs = of(recordings, id);
    return {
      transactionType: type, title: w.title as string, code: w.code as string, iswc: (w.iswc as string | null) ?? null, language: (w.language as string | null) ?? null,
      duration: (w.duration as number | null) ?? null,
      alternateTitles: of(titles, id).map((t) => ({ title: t.title as string, type: t.type as string, language: (t.language as string | null) ?? null })),
      publishers: of(publishers, id).map((p) => ({
        code: p.code as string, name: p.name as string, ipi: (p.ipi as string | null) ?? null, society: (p.society as string | null) ?? null, controlled: p.controlled as boolean,
        type: PUBLISHER_TYPE[p.role as string] ?? 'E', prShare: String(p.performance_share), mrShare: String(p.mechanical_share), srShare: String(p.mechanical_share),
      })),
      writers: of(writers, id).map((x) => ({
        code: x.code as string, lastName: x.last_name as string, firstName: (x.first_name as string | null) ?? '', ipi: (x.ipi as string | null) ?? null,
        society: (x.society as string | null) ?? null, controlled: x.controlled as boolean, designation: DESIGNATION[x.role as string] ?? 'CA',
        prShare: String(x.performance_share), mrShare: String(x.mechanical_share), srShare: String(x.mechanical_share), publisherCode: (x.publisher_code as string | null) ?? null,
      })),
      performers: [...new Set(recs.map((r) => r.display_artist as string | null).filter((a): a is string => !!a))],
      recordings: recs.map((r) => ({ isrc: (r.isrc as string | null) ?? null, title: r.title as string, displayArtist: (r.display_artist as string | null) ?? null, releaseDate: ymd(r.release_date), duration: null })),
    };
  });
}
