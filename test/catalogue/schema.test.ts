import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { resolveEffectiveSplit } from '../../src/modules/splits/effective';

describe('catalogue schema: split sum, history, effective split', () => {
  let app: TestApp;
  let a: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Schema');
  });
  after(async () => app.close());

  it('shares must sum to 100 at commit; history records changes; effective split picks levels', async () => {
    const u1 = a.users.user!.tenantUserId;
    const u2 = a.users.admin!.tenantUserId;
    const ids = await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      const [artist] = await trx('artists').insert({ tenant_id: a.tenantId, name: 'X' }).returning('id');
      const [asset] = await trx('assets').insert({ tenant_id: a.tenantId, title: 'T', isrc: 'USRC17607839' }).returning('id');
      const [product] = await trx('products').insert({ tenant_id: a.tenantId, title: 'P', upc: '0036000291452' }).returning('id');
      await trx('asset_artists').insert({ tenant_id: a.tenantId, asset_id: asset.id, artist_id: artist.id });
      await trx('product_assets').insert({ tenant_id: a.tenantId, product_id: product.id, asset_id: asset.id, track_number: 1 });
      const [d] = await trx('splits').insert({ tenant_id: a.tenantId, target: 'artist', artist_id: artist.id }).returning('id');
      await trx('split_shares').insert({ tenant_id: a.tenantId, split_id: d.id, tenant_user_id: u1, share: '100' });
      return { artist: artist.id, asset: asset.id, product: product.id, def: d.id };
    });
    await assert.rejects(
      withTenant(app.svc.db.app, a.tenantId, async (trx) => {
        const [s] = await trx('splits').insert({ tenant_id: a.tenantId, target: 'asset', asset_id: ids.asset }).returning('id');
        await trx('split_shares').insert([
          { tenant_id: a.tenantId, split_id: s.id, tenant_user_id: u1, share: '50' },
          { tenant_id: a.tenantId, split_id: s.id, tenant_user_id: u2, share: '49.5' },
        ]);
      }),
      /sum to 99.5/,
    );
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      let e = await resolveEffectiveSplit(trx, { tenantId: a.tenantId, assetId: ids.asset, productId: ids.product });
      assert.equal(e?.level, 'asset_artist');
      const [s] = await trx('splits').insert({ tenant_id: a.tenantId, target: 'product', product_id: ids.product, territories: ['FR'] }).returning('id');
      await trx('split_shares').insert([
        { tenant_id: a.tenantId, split_id: s.id, tenant_user_id: u1, share: '33.333333' },
        { tenant_id: a.tenantId, split_id: s.id, tenant_user_id: u2, share: '66.666667' },
      ]);
      e = await resolveEffectiveSplit(trx, { tenantId: a.tenantId, assetId: ids.asset, productId: ids.product, territory: 'fr' });
      assert.equal(e?.level, 'product');
      assert.equal(e?.shares.length, 2);
      e = await resolveEffectiveSplit(trx, { tenantId: a.tenantId, assetId: ids.asset, productId: ids.product, territory: 'DE' });
      assert.equal(e?.level, 'asset_artist');
      await trx('split_shares').where({ split_id: ids.def }).update({ share: '100.000000' });
      await trx.raw(`select set_config('app.tenant_user_id', ?, true)`, [u2]);
      await trx('split_shares').where({ split_id: s.id, tenant_user_id: u1 }).update({ share: '40' });
      await trx('split_shares').where({ split_id: s.id, tenant_user_id: u2 }).update({ share: '60' });
    });
    const hist = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('split_history').orderBy('seq'));
    const changes = hist.filter((h) => h.action === 'change');
    assert.equal(changes.length, 2);
    assert.equal(changes[0].changed_by, u2);
    assert.equal(changes[0].old_share, '33.333333');
    assert.equal(changes[0].new_share, '40.000000');
    // another tenant sees nothing
    const b = await createTestTenant(app, 'SchemaB', ['owner']);
    const other = await withTenant(app.svc.db.app, b.tenantId, (trx) => trx('splits').count<{ count: string }[]>({ count: '*' }));
    assert.equal(Number(other[0]!.count), 0);
  });
});
