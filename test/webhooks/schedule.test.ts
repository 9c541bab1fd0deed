import assert from 'node:assert/strict';
import { MAX_ATTEMPTS, maxAttemptsOf, RETRY_SCHEDULE, retryDelayMs, signatureHeader } from '../../src/modules/webhooks/deliver';
import { changesOf, subscribed } from '../../src/modules/webhooks/events';

describe('webhooks: retry schedule, signature, subscriptions', () => {
  it('first retry within 30 s at the largest jitter; at least 8 attempts spread over about a day', () => {
    assert.ok(retryDelayMs(1, 1, 1) <= 30_000);
    assert.ok(MAX_ATTEMPTS >= 8);
    const total = RETRY_SCHEDULE.reduce((s, x) => s + x, 0);
    assert.ok(total >= 20 * 3600 && total <= 28 * 3600, String(total));
    assert.ok(retryDelayMs(3, 1, 0) < retryDelayMs(3, 1, 1));
  });

  it('signs "<t>.<body>" with each secret in force', () => {
    assert.equal(signatureHeader(['k'], 1700000000, '{}'), 't=1700000000,v1=' + require('node:crypto').createHmac('sha256', 'k').update('1700000000.{}').digest('hex'));
    assert.equal(signatureHeader(['a', 'b'], 1, 'x').split(',v1=').length, 3);
  });

  it('matches *, family wildcards and exact names', () => {
    assert.ok(subscribed(['*'], 'payment.failed'));
    assert.ok(subscribed(['royalty.*'], 'royalty.file.processed'));
    assert.ok(!subscribed(['royalty.*'], 'payment.failed'));
    assert.ok(subscribed(['asset.created'], 'asset.created'));
    assert.ok(!subscribed(['asset.created'], 'asset.deleted'));
    assert.ok(subscribed(['PRODUCT_UPDATED'], 'product.updated'));
    assert.ok(subscribed(['USER_ADDED_TO_SPLIT'], 'split.user.added'));
    assert.ok(subscribed(['payment.*'], 'payment.request.sent'));
  });

  it('the reference envelope gets the reference\'s 3 attempts; Rondo\'s envelope its own schedule', () => {
    assert.equal(maxAttemptsOf('reference'), 3);
    assert.equal(maxAttemptsOf('rondo'), MAX_ATTEMPTS);
  });

  it('an update names the fields whose value changed and their previous values, updatedAt aside', () => {
    const before = { id: 'x', title: 'Old', tags: ['a'], upc: null, updatedAt: '1' };
    const after = { id: 'x', title: 'New', tags: ['a', 'b'], upc: null, updatedAt: '2' };
    assert.deepEqual(changesOf(before, after), { changed: ['tags', 'title'], previous: { tags: ['a'], title: 'Old' } });
  });
});
