/**
 * The fields each catalogue list sorts by (the names its items show, the reference service's
 * names among them: catalogue/reference-names.ts) and their columns; see http/list-sort.
 */
import { sortColumns } from '../../http/list-sort';

export const ARTIST_SORT = sortColumns({ name: 'ar.name', externalId: 'ar.external_id', country: 'ar.country', createdAt: 'ar.created_at', updatedAt: 'ar.updated_at', artistName: 'ar.name' });
export const ASSET_SORT = sortColumns({
  title: 'a.title', isrc: 'a.isrc', iswc: 'a.iswc', type: 'a.type', version: 'a.version', displayArtist: 'a.display_artist',
  externalId: 'a.external_id', isDraft: 'a.is_draft', createdAt: 'a.created_at', updatedAt: 'a.updated_at', ISRC: 'a.isrc',
});
export const PRODUCT_SORT = sortColumns({
  title: 'p.title', upc: 'p.upc', type: 'p.type', format: 'p.format', releaseDate: 'p.release_date', displayArtist: 'p.display_artist',
  label: 'p.label', catalogNumber: 'p.catalog_number', externalId: 'p.external_id', isDraft: 'p.is_draft', createdAt: 'p.created_at', updatedAt: 'p.updated_at',
  UPC: 'p.upc', release_date: 'p.release_date', catalog_number: 'p.catalog_number', display_artist: 'p.display_artist',
});
/** `validFrom` is the item's conditions.validFrom. */
export const SPLIT_SORT = sortColumns({ type: 's.type', target: 's.target', name: 's.name', validFrom: 's.valid_from', createdAt: 's.created_at', updatedAt: 's.updated_at', entity_type: 's.target', effective_date: 's.valid_from', asset: 's.asset_id', product: 's.product_id', artist: 's.artist_id' });
/** Split history: `changedAt` (and `seq`) is the order the changes were made in. */
export const SPLIT_HISTORY_SORT = sortColumns({
  changedAt: 'h.seq', seq: 'h.seq', splitId: 'h.split_id', target: 'h.target', type: 'h.type', action: 'h.action', user: 'h.tenant_user_id',
  oldShare: 'h.old_share', newShare: 'h.new_share', changedBy: 'h.changed_by', note: 'h.note', asset: 'h.asset_id', product: 'h.product_id', artist: 'h.artist_id',
});
/** Checklist items: `code` is the ISRC or UPC, `issues` what keeps the item from royalties. */
export const CHECKLIST_SORT = sortColumns({ title: 'c.title', kind: 'c.kind', code: 'c.code', issues: 'c.issues' });
