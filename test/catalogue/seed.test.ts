import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app';
import { seedDemo } from '../../src/seed/demo';
import { withTenant } from '../../src/db';
import { resolveEffectiveSplit } from '../../src/modules/catalogue/effective-split';
import { isValidUpc } from '../../src/modules/catalogue/identifiers';

describe('demo seeder: catalogue', () => {
  let app: TestApp;
  before(async () => (app = await startTestApp()));
  after(async () => app.close());

  it('seeds artists, recordings, products with valid UPCs and splits, idempotently', async () => {
    const r = await seedDemo(app.svc);
    assert.ok(r.seeded.includes('catalogue'));
    await seedDemo(app.svc);
    await withTenant(app.svc.db.app, r.tenantId, async (trx) => {
      assert.equal((await trx('artists')).length, 3);
      assert.equal((await trx('assets')).length, 9);
      const products = await trx('products');
      assert.equal(products.length, 3);
      assert.ok(products.every((p) => isValidUpc(p.upc)));
      const blue = await trx('assets').where({ title: 'Blue Hour' }).first();
      const fr = await resolveEffectiveSplit(trx, { tenantId: r.tenantId, assetId: blue.id, saleDate: '2026-03-01', territory: 'FR', type: 'stream' });
      assert.equal(fr?.level, 'asset');
      const us = await resolveEffectiveSplit(trx, { tenantId: r.tenantId, assetId: blue.id, saleDate: '2026-03-01', territory: 'US', type: 'stream' });
      assert.equal(us?.level, 'asset_artist');
    });
  });
});
