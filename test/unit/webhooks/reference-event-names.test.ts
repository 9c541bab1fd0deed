/**
 * Every event name the reference service's clients subscribe to (its published list) is the
 * reference name of an event Rondo sends, and subscribing by it receives that event.
 */
import assert from 'node:assert/strict';
import { REFERENCE_NAMES, rondoType, subscribed, EVENT_TYPES } from '../../../src/modules/webhooks/events';

const PUBLISHED = [
  'PAYMENT_COMPLETED', 'PAYMENT_PROCESSING', 'PAYMENT_MADE_FAILED', 'PAYMENT_REQUEST_SENT', 'PAYMENT_REQUEST_APPROVED', 'PAYMENT_REQUEST_REJECTED',
  'PAYMENT_DELETED', 'REVENUE_CREATED', 'REVENUE_UPDATED', 'REVENUE_DELETED', 'EXPENSE_CREATED', 'EXPENSE_UPDATED', 'EXPENSE_DELETED',
  'ASSET_CREATED', 'ASSET_UPDATED', 'ASSET_DELETED', 'PRODUCT_CREATED', 'PRODUCT_UPDATED', 'PRODUCT_DELETED', 'USER_CREATED', 'USER_UPDATED',
  'USER_DELETED', 'USER_INVITATION_SENT', 'ARTIST_CREATED', 'ARTIST_UPDATED', 'ARTIST_DELETED', 'ROYALTY_FILE_UPLOADED',
  'ROYALTY_FILE_PROCESSED', 'ROYALTY_FILE_PROCESSING_FAILED', 'USER_ADDED_TO_SPLIT', 'USER_REMOVED_FROM_SPLIT',
];

describe("the reference service's webhook event names", () => {
  it('each of the 31 published names is an event Rondo sends, and a subscription by it receives that event only', () => {
    assert.equal(PUBLISHED.length, 31);
    for (const name of PUBLISHED) {
      const type = rondoType(name);
      assert.ok(type && EVENT_TYPES.includes(type), `${name}: no event`);
      assert.equal(REFERENCE_NAMES[type], name);
      assert.deepEqual(EVENT_TYPES.filter((t) => subscribed([name], t)), [type], name);
    }
  });
});
