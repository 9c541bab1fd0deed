/**
 * Demo catalogue for `npm run seed:demo`: artists tied to the demo members, recordings
 * with real-looking ISRCs, products with valid UPCs, and splits at every level (artist
 * defaults, a product split, an asset split with a territory condition). Idempotent.
 */
import type { DemoContext } from './context';
import { gtinCheckDigit } from '../modules/catalogue/identifiers';
import { createArtist, createAsset, createProduct } from '../modules/catalogue/service';
import { upsertSplit } from '../modules/catalogue/splits';
import { hasAnyArtist } from '../repositories/catalogue';

function demoUpc(n: number): string {
  const body = `8594${String(40000 + n).padStart(8, '0')}`; // 12 digits → GTIN-13 body
  return body + gtinCheckDigit(body);
}

const ARTISTS = [
  { name: 'Nina Sol', user: 'ana', songs: ['Blue Hour', 'Paper Moons', 'Salt and Honey', 'Night Drive'] },
  { name: 'The Lanterns', user: 'kofi', songs: ['Harbour Lights', 'Slow Train', 'Copperline'] },
  { name: 'Kofi & the Tides', user: 'kofi', songs: ['Accra Sunset', 'Tidewater'] },
];

export const catalogueSeeder = {
  name: 'catalogue',
  async run({ trx, tenantId, users }: DemoContext): Promise<void> {
    if (await hasAnyArtist(trx)) return; // already seeded
    const owner = users.owner!;
    const finance = users.finance!;
    let n = 0;
    for (const [i, a] of ARTISTS.entries()) {
      const artist = await createArtist(trx, tenantId, { name: a.name, users: users[a.user] ? [users[a.user]!] : [] });
      // artist default: 70 % artist member, 30 % label (owner)
      await upsertSplit(trx, tenantId, owner, { target: 'artist', targetId: artist.id, split: [{ user: users[a.user]!, share: '70' }, { user: owner, share: '30' }] });
      const assetIds: string[] = [];
      for (const title of a.songs) {
        n++;
        const asset = await createAsset(trx, tenantId, owner, {
          title, isrc: `GB-MLR-26-${String(n).padStart(5, '0')}`, displayArtist: a.name, mainArtist: [a.name], mainGenre: ['Pop'], artists: [artist.id],
          contributors: { producers: ['Olivia Owens'], mixers: ['Farid Nasser'] },
        });
        assetIds.push(asset.id);
      }
      const product = await createProduct(trx, tenantId, owner, {
        title: `${a.name} — ${a.songs.length > 2 ? 'Album' : 'EP'}`, upc: demoUpc(i + 1), displayArtist: a.name, mainArtist: [a.name],
        type: a.songs.length > 2 ? 'Album' : 'EP', format: 'Digital', releaseDate: `2026-0${i + 1}-15`, mainGenre: ['Pop'], artists: [artist.id], assets: assetIds,
      });
      if (i === 1) {
        await upsertSplit(trx, tenantId, owner, { target: 'product', targetId: product.id, split: [{ user: users[a.user]!, share: '60' }, { user: finance, share: '15' }, { user: owner, share: '25' }] });
      }
      if (i === 0) {
        // streams of Blue Hour in France from 2026 pay the artist 80 %
        await upsertSplit(trx, tenantId, owner, {
          target: 'asset', targetId: assetIds[0]!, type: 'stream', conditions: { validFrom: '2026-01-01', territories: ['FR'] },
          split: [{ user: users[a.user]!, share: '80' }, { user: owner, share: '20' }],
        });
      }
    }
  },
};
