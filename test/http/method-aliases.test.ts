/**
 * The reference service's method spellings (docs/api.md, "Coming from the reference service")
 * answer like the spec's routes they alias: same auth, same validation, same answer.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload } from '../ingest/helpers';

type Op = { 'x-aliases'?: { method: string; path: string }[] };

describe('method spellings of the reference service', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let adm: string;
  const aliases: { alias: [string, string]; of: [string, string] }[] = [];
  const fill = (p: string, id: string) => p.replace(/\{[A-Za-z0-9_]+\}/g, id);
  const same = (a: { status: number; body: unknown }, b: { status: number; body: unknown }, what: string) => {
    assert.equal(a.status, b.status, what);
    assert.deepEqual(a.body, b.body, what);
  };

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Aliases', ['owner', 'admin', 'guest']);
    adm = t.users.admin!.token;
    // the plan with every feature, so no alias stops at a plan gate before its query is read
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
    const doc = (await app.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Op>> };
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) for (const a of op['x-aliases'] ?? []) aliases.push({ alias: [a.method, a.path], of: [m.toUpperCase(), p] });
    }
  });
  after(async () => app?.close());

  it('the document lists each alias on its original, never as an operation of its own', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const spelled = aliases.map((a) => a.alias.join(' '));
    for (const want of [
      'DELETE /artist/bulk/delete', 'DELETE /asset/bulk/delete', 'DELETE /product/bulk/delete', 'DELETE /split/bulk/delete', 'DELETE /user/bulk/delete',
      'DELETE /expense/bulk/delete', 'DELETE /payment-request/bulk/delete', 'POST /asset/{id}/setdefaultsplit', 'POST /product/{id}/setdefaultsplit',
      'POST /artist/{id}/merge', 'POST /payment-request/{id}/approve', 'POST /payment-request/{id}/decline', 'PATCH /notifications/read-all',
      'GET /notifications/unread-count', 'POST /accounting/refresh', 'POST /accounting/tenant/recalculate', 'GET /asset/download/csv',
      'GET /artist/download/csv', 'GET /product/download/csv', 'GET /user/download/csv', 'POST /user/invites/{id}/resend',
    ]) assert.ok(spelled.includes(want), want);
    for (const [m, p] of aliases.map((a) => a.alias)) {
      assert.equal(doc.paths[p]?.[m.toLowerCase()], undefined, `${m} ${p} is not an operation`);
    }
  });

  it('each alias refuses like its original: no token, a role too low, bad input, a missing record', async () => {
    assert.ok(aliases.length >= 20, `${aliases.length} aliases`);
    const id = crypto.randomUUID();
    const guest = t.users.guest!.token;
    for (const { alias, of } of aliases) {
      const what = `${alias.join(' ')} ~ ${of.join(' ')}`;
      // a GET carries no body: the original is then called without one too
      const bodies = alias[0] !== 'GET' && of[0] !== 'GET';
      const call = (mp: [string, string], token?: string, body?: unknown) => app.request(mp[0], fill(mp[1], id), { token, body: bodies ? body : undefined });
      same(await call(alias), await call(of), `${what}: no token`);
      same(await call(alias, guest, {}), await call(of, guest, {}), `${what}: guest`);
      const bad = { ids: [], artists: 'x', unexpected: 1 };
      const [a, o] = [await call(alias, adm, bad), await call(of, adm, bad)];
      same(a, o, `${what}: bad input`);
      // an unknown query parameter: refused by the alias as by the original, naming it
      const unknown = await call([alias[0], `${alias[1]}?zzUnknown=1`], adm, {});
      same(unknown, await call([of[0], `${of[1]}?zzUnknown=1`], adm, {}), `${what}: unknown parameter`);
      assert.equal(unknown.status, 400, `${what}: ${unknown.text}`);
      assert.match(unknown.text, /query\.zzUnknown: unknown parameter/, what);
    }
  });

  it('DELETE …/bulk/delete deletes like POST', async () => {
    const mk = async (name: string) => (await app.request('POST', '/artist/', { token: adm, body: { name } })).body.data.id as string;
    const [x, y] = [await mk('Gone One'), await mk('Gone Two')];
    const gone = crypto.randomUUID();
    const a = await app.request('DELETE', '/artist/bulk/delete', { token: adm, body: { ids: [x, gone] } });
    const o = await app.request('POST', '/artist/bulk/delete', { token: adm, body: { ids: [y, gone] } });
    same(a, o, 'bulk delete');
    assert.equal(a.body.processedCount, 1);
    assert.equal((await app.request('GET', `/artist/${x}`, { token: adm })).status, 404);
  });

  it('POST /artist/{id}/merge merges like PUT', async () => {
    const mk = async (name: string) => (await app.request('POST', '/artist/', { token: adm, body: { name } })).body.data.id as string;
    const [keep, dup] = [await mk('Keep Me'), await mk('Keep Me Twin')];
    const r = await app.request('POST', `/artist/${keep}/merge`, { token: adm, body: { artists: [dup] } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.message, 'Artists merged');
    assert.equal((await app.request('GET', `/artist/${dup}`, { token: adm })).status, 404);
  });

  it('POST /{asset|product}/{id}/setdefaultsplit answers like PUT', async () => {
    const asset = (await app.request('POST', '/asset/', { token: adm, body: { title: 'Split Me', isrc: 'QZALS2600001' } })).body.data.id as string;
    same(await app.request('POST', `/asset/${asset}/setdefaultsplit`, { token: adm }), await app.request('PUT', `/asset/${asset}/setdefaultsplit`, { token: adm }), 'setdefaultsplit');
  });

  it('POST /user/invites/{id}/resend sends the invitation again like POST /user/{id}/invitation', async () => {
    const add = await app.request('POST', '/user/', { token: adm, body: { email: 'invited.twice@aliases.example', role: 'user' } });
    assert.equal(add.status, 201, add.text);
    const id = add.body.data.id as string;
    const r = await app.request('POST', `/user/invites/${id}/resend`, { token: adm });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.message, 'Invitation sent again');
    const o = await app.request('POST', `/user/${id}/invitation`, { token: adm });
    assert.equal(o.status, r.status);
    assert.deepEqual(Object.keys(o.body).sort(), Object.keys(r.body).sort());
  });

  it('GET /user/invites lists the invitations not yet accepted; POST /user/invites/{id}/cancel withdraws one, never an accepted member', async () => {
    const add = async (email: string) => {
      const r = await app.request('POST', '/user/', { token: adm, body: { email, role: 'user' } });
      assert.equal(r.status, 201, r.text);
      return r.body.data.id as string;
    };
    const [x, y] = [await add('invite.x@aliases.example'), await add('invite.y@aliases.example')];
    const list = await app.request('GET', '/user/invites?sort=email&order=asc&search=aliases.example', { token: adm });
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.data.every((m: { status: string }) => m.status === 'invited'), list.text);
    const invited = list.body.data.map((m: { id: string }) => m.id);
    assert.ok(invited.includes(x) && invited.includes(y), list.text);
    assert.ok(!invited.includes(t.users.admin!.tenantUserId), 'an active member is no invitation');
    assert.equal(list.body.totalItems, list.body.data.length);
    const before = list.body.totalItems as number;
    // members below admin are refused
    assert.equal((await app.request('GET', '/user/invites', { token: t.users.guest!.token })).status, 403);

    const cancel = await app.request('POST', `/user/invites/${x}/cancel`, { token: adm });
    assert.deepEqual([cancel.status, cancel.body], [200, { success: true, message: 'Invitation cancelled' }]);
    assert.equal((await app.request('GET', `/user/${x}`, { token: adm })).status, 404);
    assert.equal((await app.request('GET', '/user/invites?search=aliases.example', { token: adm })).body.totalItems, before - 1);
    // an active member has no invitation to cancel: refused, and kept
    const active = await app.request('POST', `/user/invites/${t.users.owner!.tenantUserId}/cancel`, { token: adm });
    assert.deepEqual([active.status, active.body.error.code], [400, 'NOT_AN_INVITATION']);
    assert.equal((await app.request('GET', `/user/${t.users.owner!.tenantUserId}`, { token: adm })).status, 200);
    assert.equal((await app.request('POST', `/user/invites/${y}/cancel`, { token: t.users.guest!.token })).status, 403);
  });

  it('POST /accounting/users/{id}/recalculate re-derives the ledger for a member; GET /accounting/queue/status says what is still to run', async () => {
    const member = t.users.guest!.tenantUserId;
    const one = await app.request('POST', `/accounting/users/${member}/recalculate`, { token: adm });
    assert.equal(one.status, 200, one.text);
    same({ status: one.status, body: { ...one.body, data: one.body.data.totals } }, { status: 200, body: { ...(await app.request('GET', '/accounting/refresh', { token: adm })).body, data: one.body.data.totals } }, 'recalculate a member');
    const nobody = await app.request('POST', `/accounting/users/${crypto.randomUUID()}/recalculate`, { token: adm });
    assert.deepEqual([nobody.status, nobody.body.code], [404, 'USER_NOT_FOUND']);
    assert.equal((await app.request('POST', `/accounting/users/${member}/recalculate`, { token: t.users.guest!.token })).status, 403);

    // this app runs no workers: what is sent stays queued (a new workspace, so nothing else is)
    const q = await createTestTenant(app, 'AliasesQueue', ['admin', 'guest']);
    const qa = q.users.admin!.token;
    const quiet = await app.request('GET', '/accounting/queue/status', { token: qa });
    assert.equal(quiet.status, 200, quiet.text);
    assert.deepEqual(quiet.body.data, { idle: true, files: { waiting: 0, needsConfirmation: 0, processing: 0 }, reallocation: { changesWaiting: 0, queued: 0, running: 0 } });
    assert.equal((await app.request('POST', '/royalty/reallocate', { token: qa })).status, 200);
    const up = await upload(app, qa, 'statement.csv', 'ISRC,Amount\nQZALS2600001,1.00\n');
    assert.equal(up.status, 201, up.text);
    const asset = await app.request('POST', '/asset', { token: qa, body: { title: 'Marked', isrc: 'QZALS2600002' } });
    assert.equal(asset.status, 201, asset.text);
    const busy = await app.request('GET', '/accounting/queue/status', { token: qa });
    assert.deepEqual(busy.body.data, { idle: false, files: { waiting: 1, needsConfirmation: 0, processing: 0 }, reallocation: { changesWaiting: 1, queued: 1, running: 0 } });
    // another workspace's queue is its own
    const other = await createTestTenant(app, 'AliasesOther', ['admin']);
    assert.equal((await app.request('GET', '/accounting/queue/status', { token: other.users.admin!.token })).body.data.idle, true);
    assert.equal((await app.request('GET', '/accounting/queue/status', { token: q.users.guest!.token })).status, 403);
  });

  it('the notification, accounting and download spellings answer like the spec routes', async () => {
    same(await app.request('GET', '/notifications/unread-count', { token: adm }), await app.request('GET', '/notifications/unread/count', { token: adm }), 'unread count');
    const readAll = await app.request('PATCH', '/notifications/read-all', { token: adm });
    assert.equal(readAll.status, 200, readAll.text);
    const unread = await app.request('GET', '/notifications/unread-count', { token: adm });
    same(unread, await app.request('GET', '/notifications/unread/count', { token: adm }), 'unread count after read-all');
    assert.doesNotMatch(JSON.stringify(unread.body), /[1-9]/, 'nothing unread after read-all');
    const again = await app.request('PATCH', '/notifications/mark-all-read', { token: adm });
    same(again, await app.request('PATCH', '/notifications/read-all', { token: adm }), 'read all');
    const refresh = await app.request('POST', '/accounting/refresh', { token: adm });
    assert.equal(refresh.status, 200, refresh.text);
    same(refresh, await app.request('GET', '/accounting/refresh', { token: adm }), 'refresh');
    same(await app.request('POST', '/accounting/tenant/recalculate', { token: adm }), await app.request('GET', '/accounting/refresh', { token: adm }), 'recalculate');
    await app.request('POST', '/artist/', { token: adm, body: { name: 'In The Csv' } });
    const csv = await app.request('GET', '/artist/download/csv', { token: adm });
    assert.equal(csv.status, 200, csv.text);
    assert.match(csv.text, /In The Csv/);
    assert.equal(csv.text, (await app.request('POST', '/artist/download/csv', { token: adm, body: {} })).text);
  });
});
