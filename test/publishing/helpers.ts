import type { TestApp, TestTenant } from '../helpers/app';
import { ipiWithCheck } from '../../src/modules/publishing/identifiers';

let n = 0;
/** A valid IPI name number, unique per call. */
export function ipi(): string {
  n += 1;
  return ipiWithCheck(String(100_000_000 + n * 7919 + (Date.now() % 1000) * 100_003).slice(-9));
}

/** An ISWC with its check digit, from nine digits. */
export function iswc(nine: string): string {
  let sum = 1;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(nine[i]);
  return `T-${nine.slice(0, 3)}.${nine.slice(3, 6)}.${nine.slice(6, 9)}-${(10 - (sum % 10)) % 10}`;
}

/** Put a workspace on the plan that has the publishing feature. */
export async function withPublishing(app: TestApp, t: TestTenant): Promise<void> {
  await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
}

/** A writer and a publisher of the workspace (controlled, with IPIs); their ids. */
export async function parties(app: TestApp, token: string, names = { writer: 'Jones', publisher: 'Acme Music' }) {
  const w = await app.request('POST', '/writers', { token, body: { firstName: 'Ann', lastName: names.writer, ipi: ipi(), society: 'PRS' } });
  const p = await app.request('POST', '/publishers', { token, body: { name: names.publisher, ipi: ipi(), society: 'PRS' } });
  if (w.status !== 201 || p.status !== 201) throw new Error(`fixture: ${w.text} ${p.text}`);
  return { writer: w.body.data.id as string, publisher: p.body.data.id as string };
}
