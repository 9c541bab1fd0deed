import assert from 'node:assert/strict';
import { rowView } from '../../../src/lib/row-view';

describe('rowView: a database row as an API object', () => {
  it('camel-cases listed columns, renames where told, dates as ISO strings, nulls kept, others left out', () => {
    const row = { id: 'x', resource_type: 'file', dsp_norm: 'spotify', expires_at: null, created_at: new Date('2026-11-24T10:00:00Z'), secret: 's' };
    assert.deepEqual(rowView(row, ['id', 'resource_type', ['dsp', 'dsp_norm'], 'expires_at', 'created_at']), {
      id: 'x',
      resourceType: 'file',
      dsp: 'spotify',
      expiresAt: null,
      createdAt: '2026-11-24T10:00:00.000Z',
    });
  });
});
