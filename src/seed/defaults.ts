/**
 * Demo default settings for `npm run seed:demo`: a catalog and a label holding the demo
 * artists, DDEX party ids and deal terms (test messages), and one release built from the
 * first demo album, so POST /ddex/ern/generate works on a fresh demo. Idempotent.
 */
import type { DemoContext } from './context';
import { createCatalog, createLabel } from '../modules/defaultsettings/labels';
import { createSetting } from '../modules/defaultsettings/service';
import { createRelease } from '../modules/releases/service';
import { ANONYMOUS } from '../modules/auth/tokens';
import { dateOnly } from '../modules/catalogue/common';
import { artistIdsByName, firstReleasedProduct, productTracks } from '../repositories/catalogue';

export const defaultSettingsSeeder = {
  name: 'default-settings',
  async run({ trx, tenantId, users }: DemoContext): Promise<void> {
    if (await trx('labels').first('id')) return; // already seeded
    const owner = users.owner!;
    const actor = { tenantUserId: owner, isAdmin: true };
    const catalog = await createCatalog(trx, tenantId, { name: 'Frontline', description: 'Current releases' });
    const artists = await artistIdsByName(trx);
    const label = await createLabel(trx, tenantId, { name: 'Moonlight Records', catalogId: catalog.id, artists });
    const tenant = { entityType: 'tenant' as const, entityId: 'current' };
    for (const [key, value] of [
      ['senderDpid', 'PADPIDA2026DEMO01L'], ['recipientDpid', 'PADPIDA2026DEMO02S'], ['recipientName', 'Demo Store'], ['messageControlType', 'TestMessage'],
    ] as const) await createSetting(trx, tenantId, actor, tenant, { category: 'ddex', key, value });
    const onLabel = { entityType: 'label' as const, entityId: label.id };
    await createSetting(trx, tenantId, actor, onLabel, { category: 'ddex', key: 'territories', value: ['GB', 'IE', 'US', 'CA'] });
    await createSetting(trx, tenantId, actor, onLabel, { category: 'content', key: 'pLine', value: '2026 Moonlight Records' });
    await createSetting(trx, tenantId, actor, onLabel, { category: 'content', key: 'genre', value: 'Pop' });

    const product = await firstReleasedProduct(trx);
    if (!product) return;
    const tracks = await productTracks(trx, product.id);
    const artist = await trx('product_artists').where({ product_id: product.id }).orderBy('position').first('artist_id');
    await createRelease(trx, tenantId, { ...ANONYMOUS, tenantId, tenantUserId: owner, role: 'owner' }, {
      title: product.title, artist: artist?.artist_id ?? null, product: product.id, type: 'Album', upc: product.upc,
      releaseDate: dateOnly(product.release_date), label: 'Moonlight Records',
      tracks: tracks.map((t, i) => ({ title: t.title, asset: t.id, metadata: { duration: 180 + i * 17 } })),
    });
  },
};
