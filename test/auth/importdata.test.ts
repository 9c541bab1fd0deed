import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';

/** POST /auth/importdata (docs/auth.md): members and their artist links from a CSV. */
describe('POST /auth/importdata: members and artist links from a CSV', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const artists: Record<string, string> = {};

  const upload = (t: TestTenant, csv: string, o: { dryRun?: string; role?: string; query?: string } = {}) => {
    const fd = new FormData();
    if (o.dryRun !== undefined) fd.append('dryRun', o.dryRun);
    fd.append('file', new Blob([Buffer.from(csv)]), 'members.csv');
    return app.request('POST', `/auth/importdata${o.query ?? ''}`, { token: t.users[o.role ?? 'admin']!.token, raw: fd });
  };
  const membersOf = (t: TestTenant) => app.svc.db.owner('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').where('tu.tenant_id', t.tenantId).orderBy('u.email').select('u.email', 'tu.id', 'tu.role', 'tu.status', 'u.password_hash', 'u.first_name');
  const linksOf = (t: TestTenant) => app.svc.db.owner('artist_users').where({ tenant_id: t.tenantId }).count<{ n: string }[]>({ n: '*' }).then(([r]) => Number(r!.n));

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Moving Label');
    b = await createTestTenant(app, 'Other Label');
    for (const [t, name] of [[a, 'Nina Sol'], [a, 'The Tides'], [a, 'Twin'], [a, 'Twin'], [b, 'Elsewhere']] as const) {
      const r = await app.request('POST', '/artist/', { token: t.users.admin!.token, body: { name } });
      assert.equal(r.status, 201, r.text);
      artists[name === 'Twin' && artists.Twin ? 'Twin2' : name] = r.body.data.id;
    }
  });
  after(() => app.close());

  // line 1 header, 2-3 good, 4 an existing member, 5 bad e-mail, 6 unknown artist, 7 ambiguous name,
  // 8 bad role, 9 blank (skipped), 10-11 a quoted cell over two lines, 12 a repeated e-mail, 13 an artist of another workspace
  const csv = () =>
    [
      'Email,First Name,Last Name,Role,Artists,Notes',
      `nina@moving.test,Nina,Sol,user,Nina Sol,lead`,
      `manager@moving.test,Max,Ager,admin,"nina sol; ${artists['The Tides']}",`,
      `${a.users.user!.email},,,user,The Tides,`,
      `not-an-email,Bad,Mail,user,,`,
      `ghost@moving.test,Gho,St,user,Nobody Known,`,
      `twin@moving.test,Tw,In,user,Twin,`,
      `boss@moving.test,Bo,Ss,emperor,,`,
      ``,
      `tides@moving.test,"Tide`,
      `s",Band,guest,The Tides,`,
      `NINA@moving.test,Nina,Again,user,,`,
      `far@moving.test,Far,Away,user,${artists.Elsewhere},`,
    ].join('\r\n') + '\r\n';

  it('a dry run reports every row by line and writes nothing, e-mails nobody', async () => {
    const before = { members: (await membersOf(a)).length, links: await linksOf(a) };
    const r = await upload(a, csv(), { dryRun: 'true' });
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    assert.equal(d.dryRun, true);
    assert.deepEqual(d.ignoredColumns, ['Notes']);
    assert.deepEqual(
      d.results.map((x: { line: number; status: string }) => [x.line, x.status]),
      [[2, 'invited'], [3, 'invited'], [4, 'existing'], [5, 'error'], [6, 'error'], [7, 'error'], [8, 'error'], [10, 'invited'], [12, 'error'], [13, 'error']],
    );
    assert.deepEqual([d.rows, d.invited, d.existing, d.failed, d.artistsLinked], [10, 3, 1, 6, 5]);
    const err = (line: number) => d.results.find((x: { line: number }) => x.line === line).errors.join(' | ');
    assert.match(err(5), /^email: "not-an-email" is not an e-mail address$/);
    assert.match(err(6), /no artist named "Nobody Known"/);
    assert.match(err(7), /2 artists are named "Twin"; give the id instead/);
    assert.match(err(8), /role: must be one of guest, user, admin, owner/);
    assert.match(err(12), /email: NINA@moving\.test is already on line 2/);
    assert.match(err(13), new RegExp(`no artist with id ${artists.Elsewhere} in this workspace`));
    assert.deepEqual({ members: (await membersOf(a)).length, links: await linksOf(a) }, before);
    assert.equal((await mailsTo(app.dataDir, 'nina@moving.test')).length, 0);
    const q = await upload(a, csv(), { query: '?dryRun=1' });
    assert.equal(q.status, 200, q.text);
    assert.equal(q.body.data.dryRun, true);
    assert.equal((await membersOf(a)).length, before.members);
  });

  it('an import invites each good row (invitation e-mail, no password), links its artists, keeps them despite bad rows', async () => {
    const r = await upload(a, csv());
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    assert.equal(d.dryRun, false);
    assert.deepEqual([d.invited, d.existing, d.failed, d.artistsLinked], [3, 1, 6, 5]);
    const members = await membersOf(a);
    const nina = members.find((m) => m.email === 'nina@moving.test')!;
    assert.equal(nina.status, 'invited');
    assert.equal(nina.role, 'user');
    assert.equal(nina.password_hash, null);
    assert.equal(nina.first_name, 'Nina');
    assert.equal(members.find((m) => m.email === 'manager@moving.test')!.role, 'admin');
    const tides = members.find((m) => m.email === 'tides@moving.test')!;
    assert.equal(tides.first_name, 'Tide\r\ns');
    assert.equal(tides.role, 'guest');
    for (const bad of ['ghost@moving.test', 'twin@moving.test', 'boss@moving.test', 'far@moving.test']) assert.ok(!members.some((m) => m.email === bad), bad);
    const mails = await mailsTo(app.dataDir, 'nina@moving.test');
    assert.equal(mails.length, 1);
    assert.match(mails[0]!, /invited to Moving Label/);
    assert.match(mails[0]!, /\/app\/set-password\?token=/);
    const links = await app.svc.db.owner('artist_users').where({ tenant_id: a.tenantId }).select('artist_id', 'tenant_user_id');
    const of = (m: { id: string }) => links.filter((l) => l.tenant_user_id === m.id).map((l) => l.artist_id).sort();
    assert.deepEqual(of(nina), [artists['Nina Sol']]);
    assert.deepEqual(of(members.find((m) => m.email === 'manager@moving.test')!), [artists['Nina Sol'], artists['The Tides']].sort());
    assert.deepEqual(of(members.find((m) => m.email === a.users.user!.email)!), [artists['The Tides']]);
  });

  it('a re-upload adds no member, link or e-mail twice', async () => {
    const before = { members: (await membersOf(a)).length, links: await linksOf(a), mails: (await mailsTo(app.dataDir, 'nina@moving.test')).length };
    const r = await upload(a, csv());
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.data.invited, r.body.data.existing, r.body.data.failed, r.body.data.artistsLinked], [0, 4, 6, 0]);
    assert.deepEqual({ members: (await membersOf(a)).length, links: await linksOf(a), mails: (await mailsTo(app.dataDir, 'nina@moving.test')).length }, before);
  });

  it('another workspace: its artists are unknown here, its members untouched; ours are not visible there', async () => {
    const r = await upload(b, `email,artists\nnina@moving.test,Elsewhere\nlate@other.test,${artists['Nina Sol']}\n`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.results.map((x: { line: number; status: string }) => [x.line, x.status]), [[2, 'invited'], [3, 'error']]);
    assert.match(r.body.data.results[1].errors[0], /no artist with id .* in this workspace/);
    const inA = (await membersOf(a)).find((m) => m.email === 'nina@moving.test')!;
    assert.equal(inA.status, 'invited');
    assert.equal(inA.role, 'user');
    const bList = await app.request('GET', '/user/', { token: b.users.admin!.token });
    assert.ok(!bList.text.includes('manager@moving.test'));
  });

  it('admins and owners only; only an owner imports an owner', async () => {
    assert.equal((await upload(a, 'email\nx@moving.test\n', { role: 'user' })).status, 403);
    const byAdmin = await upload(a, 'email,role\nchief@moving.test,owner\n');
    assert.equal(byAdmin.status, 200);
    assert.deepEqual(byAdmin.body.data.results[0].errors, ['role: only an owner can add an owner']);
    const byOwner = await upload(a, 'email,role\nchief@moving.test,owner\n', { role: 'owner' });
    assert.equal(byOwner.body.data.results[0].status, 'invited');
  });

  it('a file that is not a member CSV is a 400 naming the problem; nothing is written', async () => {
    const noEmail = await upload(a, 'name,artists\nNina,Nina Sol\n');
    assert.equal(noEmail.status, 400, noEmail.text);
    assert.match(noEmail.text, /no \\"email\\" column/);
    const empty = await upload(a, '\n\n');
    assert.equal(empty.status, 400);
    assert.match(empty.text, /no header row/);
    const badFlag = await upload(a, 'email\nz@moving.test\n', { dryRun: 'maybe' });
    assert.equal(badFlag.status, 400);
    assert.match(badFlag.text, /body\.dryRun must be true or false/);
    const notMultipart = await app.request('POST', '/auth/importdata', { token: a.users.admin!.token, body: { email: 'x@moving.test' } });
    assert.equal(notMultipart.status, 400);
    const nul = await upload(a, 'email\nz@moving.test\u0000\n');
    assert.equal(nul.status, 400);
    assert.ok(!(await membersOf(a)).some((m) => m.email.startsWith('z@')));
  });
});
