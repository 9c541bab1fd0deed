/** The fields each catalogue list sorts by (the names its items show) and their columns; see http/list-sort. */
import { sortColumns } from '../../http/list-sort';

export const ARTIST_SORT = sortColumns({ name: 'ar.name', externalId: 'ar.external_id', country: 'ar.country', createdAt: 'ar.created_at', updatedAt: 'ar.updated_at' });
export const ASSET_SORT = sortColumns({
  title: 'a.title', isrc: 'a.isrc', iswc: 'a.iswc', type: 'a.type', version: 'a.version', displayArtist: 'a.display_artist',
  externalId: 'a.external_id', isDraft: 'a.is_draft', createdAt: 'a.created_at', updatedAt: 'a.updated_at',
});
export const PRODUCT_SORT = sortColumns({
  title: 'p.title', upc: 'p.upc', type: 'p.type', format: 'p.format', releaseDate: 'p.release_date', displayArtist: 'p.display_artist',
  label: 'p.label', catalogNumber: 'p.catalog_number', externalId: 'p.external_id', isDraft: 'p.is_draft', createdAt: 'p.created_at', updatedAt: 'p.updated_at',
});
/** `validFrom` is the item's conditions.validFrom. */
export const SPLIT_SORT = sortColumns({ type: 's.type', target: 's.target', name: 's.name', validFrom: 's.valid_from', createdAt: 's.created_at', updatedAt: 's.updated_at' });
