/**
 * The reference service's published client flows, played against a live server (the real
 * HTTP stack): the two-step sign-in (sign in, then a token for one workspace), API keys made
 * with the CLI's service function and used as the clients use them, and paged lists walked
 * with `page`/`size`, `sort`/`order` and `search`, read by `totalItems`, `totalPages` and
 * `currentPage`. Analytics: analytics-flow.test.ts; resource bodies: resource-bodies.test.ts.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

type ListAnswer = { data: Record<string, any>[]; totalItems: number; totalPages: number; currentPage: number };

describe("the reference service's client flows: sign-in, API keys, paged lists", function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'RefClient', ['owner', 'admin', 'user']);
  });
  after(async () => app?.close());

  it('two-step sign-in: e-mail and password give a refresh token and the workspaces; the workspace token reads the workspace', async () => {
    const owner = t.users.owner!;
    const login = await app.request('POST', '/auth/login', { body: { email: owner.email, password: owner.password } });
    assert.equal(login.status, 200, login.text);
    assert.equal(typeof login.body.refresh_token, 'string');
    assert.deepEqual(login.body.workspaces.map((w: any) => w.workspaceId), [t.workspaceId]);
    // the refresh token alone reads nothing of the workspace
    assert.equal((await app.request('GET', '/artist/', { token: login.body.refresh_token })).status, 401);
    const step2 = await app.request('GET', `/auth/authtoken?currentWorkspace=${t.workspaceId}`, { token: login.body.refresh_token });
    assert.equal(step2.status, 200, step2.text);
    const access = step2.body.data.access_token as string;
    const me = await app.request('GET', '/user', { token: access });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.email, owner.email);
    const artists = await app.request('GET', '/artist/', { token: access });
    assert.equal(artists.status, 200, artists.text);
    // a wrong password: 401, no token
    const wrong = await app.request('POST', '/auth/login', { body: { email: owner.email, password: 'not the password' } });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.refresh_token, undefined);
  });

  it('API keys: a workspace key (RWAK_) and a member key (RUAK_) made by the CLI call the API as a client does', async () => {
    // the CLI's `key:create` calls this service function (src/cli.ts)
    const ws = await app.svc.auth.createApiKey('workspace', { tenantId: t.tenantId, name: 'reference client' });
    assert.match(ws.token, /^RWAK_/);
    const made = await app.request('POST', '/artist', { token: ws.token, body: { artistName: 'Key Artist', signDate: '2025-02-01' } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.data.artistName, 'Key Artist');
    const list = await app.request('GET', '/artist/?search=key&sort=artistName&order=asc', { token: ws.token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((a: any) => a.artistName), ['Key Artist']);

    const member = await app.svc.auth.createApiKey('user', { tenantId: t.tenantId, tenantUserId: t.users.user!.tenantUserId });
    assert.match(member.token, /^RUAK_/);
    // a member's key has the member's role: creating an artist needs admin
    const refused = await app.request('POST', '/artist', { token: member.token, body: { artistName: 'Not Theirs' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'INSUFFICIENT_ROLE');
    assert.equal((await app.request('GET', '/user', { token: member.token })).body.data.email, t.users.user!.email);

    await app.svc.auth.revokeApiKey(ws.id);
    assert.equal((await app.request('GET', '/artist/', { token: ws.token })).status, 401);
  });

  it('paged lists: every page walked by totalPages, in the order asked, with search', async () => {
    const tok = t.users.admin!.token;
    const titles = ['Amber', 'Birch', 'Cedar', 'Dune', 'Elm', 'Fern', 'Grove'];
    for (const [i, title] of titles.entries()) {
      const r = await app.request('POST', '/asset', { token: tok, body: { title: `${title} Song`, ISRC: `QZREF25000${i + 10}` } });
      assert.equal(r.status, 201, r.text);
    }
    const walk = async (query: string): Promise<{ items: Record<string, any>[]; first: ListAnswer }> => {
      const first = (await app.request('GET', `/asset?${query}&page=1&size=3`, { token: tok })).body as ListAnswer;
      const items = [...first.data];
      for (let page = 2; page <= first.totalPages; page++) {
        const r = await app.request('GET', `/asset?${query}&page=${page}&size=3`, { token: tok });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.currentPage, page);
        items.push(...r.body.data);
      }
      return { items, first };
    };
    const byTitle = await walk('sort=title&order=desc&search=song');
    assert.deepEqual([byTitle.first.totalItems, byTitle.first.totalPages, byTitle.first.currentPage], [7, 3, 1]);
    assert.deepEqual(byTitle.items.map((a) => a.title), titles.map((x) => `${x} Song`).reverse());
    // the reference's default sort field and its ISRC name
    const byUpdated = await walk('sort=updatedAt&order=desc&search=song');
    assert.equal(byUpdated.items.length, 7);
    const stamps = byUpdated.items.map((a) => a.updatedAt as string);
    assert.deepEqual(stamps, [...stamps].sort().reverse());
    const byIsrc = await walk('sort=ISRC&order=asc');
    assert.deepEqual(byIsrc.items.map((a) => a.ISRC), titles.map((_, i) => `QZREF25000${i + 10}`));
    const found = await walk('search=cedar');
    assert.deepEqual([found.first.totalItems, found.first.totalPages], [1, 1]);
    assert.deepEqual(found.items.map((a) => a.title), ['Cedar Song']);
    // a field the list does not sort by is refused, naming it
    const bad = await app.request('GET', '/asset?sort=popularity', { token: tok });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'INVALID_SORT');
    assert.match(bad.body.error.details[0], /sort: "popularity" is not a field this list sorts by/);
  });
});
