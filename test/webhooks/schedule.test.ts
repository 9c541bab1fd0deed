import assert from 'node:assert/strict';
import { MAX_ATTEMPTS, RETRY_SCHEDULE, retryDelayMs, signatureHeader } from '../../src/modules/webhooks/deliver';
import { subscribed } from '../../src/modules/webhooks/events';

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
  });
});
