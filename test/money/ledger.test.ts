import assert from 'node:assert/strict';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp } from '../helpers/app';
import { withTenant } from '../../src/db';
import { refreshLedger } from '../../src/modules/money/ledger';
import { createExpense } from '../../src/modules/money/expenses';
import { createRevenue } from '../../src/modules/money/revenues';
import { createPayment, setPaymentStatus } from '../../src/modules/money/payments';
import type { AuthContext } from '../../src/modules/auth/tokens';
import { allocateFile, uuid } from './helpers';

const D = (v: string | number) => new Decimal(v);
const sum = (xs: (string | Decimal)[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));

describe('money: ledger invariants', function () {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('ledger_entries is append-only beneath the application (UPDATE/DELETE refused)', async () => {
    const t = await createTestTenant(app, 'Append', ['admin']);
    await allocateFile(app, t.tenantId, uuid(), [{ payee: t.users.admin!.tenantUserId, amount: '1' }]);
    await assert.rejects(withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').update({ amount: 99 })), /permission denied/);
    await assert.rejects(withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').delete()), /permission denied/);
    await assert.rejects(app.svc.db.owner('ledger_entries').update({ amount: 99 }), /append-only/);
    const n = await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').sum({ s: 'amount' }));
    assert.equal(D(n[0]!.s).toFixed(), '1');
  });

  it('recoupment order: the most specific target claims a line; untargeted expenses take what is left, oldest first', async () => {
    const t = await createTestTenant(app, 'Order', ['admin']);
    const p = t.users.admin!.tenantUserId;
    const auth: AuthContext = { kind: 'access', userId: null, tenantId: t.tenantId, tenantUserId: p, role: 'admin', isSuperAdmin: false, sessionId: null, keyId: null };
    const artist = uuid();
    const song = uuid();
    const ids = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      await trx('artists').insert({ tenant_id: t.tenantId, id: artist, name: 'A' });
      await trx('assets').insert({ tenant_id: t.tenantId, id: song, title: 'S', isrc: 'USORD2600001' });
      const onArtist = await createExpense(trx, auth, { user: p, title: 'artist', amount: 10, currency: 'USD', targetType: 'artist', targetId: artist, date: '2026-01-01' });
      const onSong = await createExpense(trx, auth, { user: p, title: 'song', amount: 10, currency: 'USD', targetType: 'asset', targetId: song, date: '2026-02-01' });
      const general1 = await createExpense(trx, auth, { user: p, title: 'g1', amount: 4, currency: 'USD', recoupable: true, date: '2026-03-01' });
      const general2 = await createExpense(trx, auth, { user: p, title: 'g2', amount: 4, currency: 'USD', recoupable: true, date: '2026-03-02' });
      return [onArtist.id, onSong.id, general1.id, general2.id] as string[];
    });
    // 15 on the song (by the artist), 3 on another line of the artist, 2 elsewhere
    await allocateFile(app, t.tenantId, uuid(), [
      { payee: p, amount: '15', assetId: song, artistId: artist, period: '2026-10' },
      { payee: p, amount: '3', artistId: artist, period: '2026-10' },
      { payee: p, amount: '2', period: '2026-10' },
    ]);
    const recouped = await withTenant(app.svc.db.app, t.tenantId, async (trx) =>
      Promise.all(ids.map(async (id) => D((await trx('ledger_entries').where({ source_id: id }).sum({ s: 'amount' }))[0]!.s ?? 0).neg().toFixed())),
    );
    // song line → song expense (10 of 15; the 5 left is not the artist's to take); artist
    // expense gets only the artist's other line (3); untargeted: 5 + 2 = 7 left → g1 4, g2 3
    assert.deepEqual(recouped, ['3', '10', '4', '3']);
  });

  it('targeted recoupment never takes more than the payee was credited in total (a negative credit recoups nothing)', async () => {
    const t = await createTestTenant(app, 'Capped', ['admin']);
    const p = t.users.admin!.tenantUserId;
    const auth: AuthContext = { kind: 'access', userId: null, tenantId: t.tenantId, tenantUserId: p, role: 'admin', isSuperAdmin: false, sessionId: null, keyId: null };
    const [a, b] = [uuid(), uuid()];
    const expense = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      await trx('assets').insert([
        { tenant_id: t.tenantId, id: a, title: 'A', isrc: 'USCAP2600001' },
        { tenant_id: t.tenantId, id: b, title: 'B', isrc: 'USCAP2600002' },
      ]);
      return createExpense(trx, auth, { user: p, title: 'on A', amount: 10, currency: 'USD', targetType: 'asset', targetId: a, date: '2026-10-01' });
    });
    // +20 on A, −30 on B in one file: credited −10 in total
    await allocateFile(app, t.tenantId, uuid(), [
      { payee: p, amount: '20', assetId: a, period: '2026-10' },
      { payee: p, amount: '-30', assetId: b, period: '2026-10' },
    ]);
    const byKind = async () =>
      withTenant(app.svc.db.app, t.tenantId, async (trx) => {
        const rows = (await trx('ledger_entries').where({ tenant_user_id: p }).select('kind').sum({ s: 'amount' }).groupBy('kind').orderBy('kind')) as { kind: string; s: string }[];
        return Object.fromEntries(rows.filter((r) => !D(r.s as string).isZero()).map((r) => [r.kind as string, D(r.s as string).toFixed()]));
      });
    assert.deepEqual(await byKind(), { overpayment_recovery: '10', royalty: '-10' });
    // credited 5 in total after a later file: the expense on A recoups 5, not the 10 its target earned
    // (the receivable set aside in October is recovered in November)
    await allocateFile(app, t.tenantId, uuid(), [{ payee: p, amount: '15', period: '2026-11' }]);
    assert.deepEqual(await byKind(), { expense_recoup: '-5', royalty: '5' });
    const recouped = await withTenant(app.svc.db.app, t.tenantId, async (trx) => (await trx('ledger_entries').where({ source_id: expense.id }).sum({ s: 'amount' }))[0]!.s);
    assert.equal(D(recouped).toFixed(), '-5');
  });

  /**
   * Randomised workspaces (files, re-allocations, expenses with and without targets,
   * revenues, payments that succeed or fail, in any order). Afterwards:
   *  - total royalties allocated (current royalty_earnings) = Σ payees' royalty entries;
   *  - each expense's recouped amount = an independent JS model of the recoupment order (on
   *    what the ledger credited: recouped ≤ credited);
   *  - each payee's due = earnings − recouped − payments + reversals (+ adjustments), and it
   *    equals the sum of the source rows;
   *  - /accounting/refresh posts nothing and refreshstats says consistent.
   */
  it('reconciliation identities hold on randomised data (property-based)', async function () {
    this.timeout(120_000);
    const amount = fc.integer({ min: -500, max: 60_00 }).map((c) => D(c).div(100).toFixed());
    const positive = fc.integer({ min: 1, max: 8_000 }).map((c) => D(c).div(100).toFixed());
    const period = fc.constantFrom('2026-08', '2026-09', '2026-10', '2026-11');
    const payeeIx = fc.integer({ min: 0, max: 2 });
    const line = fc.record({ payee: fc.integer({ min: 0, max: 1 }), amount, period, asset: fc.integer({ min: -1, max: 2 }) });
    // weighted towards files and expenses so that targets are shared by several expenses
    const op = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('file' as const), file: fc.integer({ min: 0, max: 2 }), lines: fc.array(line, { minLength: 1, maxLength: 6 }), supersede: fc.boolean() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('expense' as const), payee: fc.integer({ min: 0, max: 1 }), amount: positive, recoupable: fc.boolean(), target: fc.constantFrom('none', 'asset', 'artist'), ix: fc.integer({ min: 0, max: 1 }), period }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('revenue' as const), amount: positive, split: fc.constantFrom([100], [40, 60], [33.333333, 33.333334, 33.333333]), period }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('payment' as const), payee: payeeIx, amount: positive, fail: fc.boolean() }) },
    );

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 16 }), async (ops) => {
        const t = await createTestTenant(app, 'Prop', ['admin', 'user', 'guest']);
        const payees = [t.users.admin!.tenantUserId, t.users.user!.tenantUserId, t.users.guest!.tenantUserId];
        const auth: AuthContext = { kind: 'access', userId: null, tenantId: t.tenantId, tenantUserId: payees[0]!, role: 'admin', isSuperAdmin: false, sessionId: null, keyId: null };
        const artists = [uuid(), uuid()];
        const assets = [uuid(), uuid(), uuid()];
        const artistOf = (i: number) => artists[i % 2]!;
        const files = [uuid(), uuid(), uuid()];
        await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
          await trx('artists').insert(artists.map((id, i) => ({ tenant_id: t.tenantId, id, name: `A${i}` })));
          await trx('assets').insert(assets.map((id, i) => ({ tenant_id: t.tenantId, id, title: `S${i}`, isrc: `USAAA26${String(t.tenantId).padStart(3, '0')}${i}${i}`.slice(0, 12) })));
        });
        for (const o of ops) {
          if (o.kind === 'file') {
            await allocateFile(
              app,
              t.tenantId,
              files[o.file]!,
              o.lines.map((l) => ({ payee: payees[l.payee]!, amount: l.amount, period: l.period, assetId: l.asset >= 0 ? assets[l.asset] : null, artistId: l.asset >= 0 ? artistOf(l.asset) : null })),
              { supersedePrevious: o.supersede },
            );
          } else
            await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
              if (o.kind === 'expense') {
                const target = o.recoupable && o.target !== 'none' ? { targetType: o.target as 'asset' | 'artist', targetId: o.target === 'asset' ? assets[o.ix]! : artists[o.ix % 2]! } : {};
                await createExpense(trx, auth, { user: payees[o.payee]!, title: 'e', amount: o.amount, currency: 'USD', recoupable: o.recoupable, date: `${o.period}-10`, ...target });
              } else if (o.kind === 'revenue') {
                await createRevenue(trx, auth, { title: 'r', amount: o.amount, currency: 'USD', accountingPeriod: o.period, splits: o.split.map((s, i) => ({ user: payees[i]!, share: s })) });
              } else {
                const p = await createPayment(trx, auth, { user: payees[o.payee]!, amount: o.amount, currency: 'USD' });
                if (o.fail) await setPaymentStatus(trx, p.id as string, 'failed');
              }
            });
        }

        await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
          const earnings = await trx('royalty_earnings').whereNull('superseded_at').select('tenant_user_id', 'file_id', 'amount', 'asset_id', 'artist_id');
          const shares = await trx('revenue_shares').select('tenant_user_id', 'amount');
          const ledger = await trx('ledger_entries').select('tenant_user_id', 'kind', 'amount', 'source_type', 'source_id', 'accounting_period');
          const expenses = await trx('expenses').select('*');
          const payments = await trx('payments').select('tenant_user_id', 'base_amount', 'status');
          // identity 1: total royalties allocated = Σ payees' royalty entries
          assert.equal(sum(ledger.filter((l) => l.kind === 'royalty').map((l) => l.amount)).toFixed(), sum(earnings.map((e) => e.amount)).toFixed());
          // recoupment: independent model of the documented order
          const model = new Map<string, Decimal>();
          for (const p of payees) {
            const mine = expenses.filter((x) => x.tenant_user_id === p && x.recoupable);
            const order = (xs: typeof mine) =>
              [...xs].sort((x, y) => +new Date(x.expense_date) - +new Date(y.expense_date) || +new Date(x.created_at) - +new Date(y.created_at) || (x.id < y.id ? -1 : 1));
            const lines = earnings.filter((e) => e.tenant_user_id === p);
            const has = (type: string, id: string | null) => !!id && mine.some((x) => x.target_type === type && x.target_id === id);
            const claim = (e: (typeof lines)[number]) => (has('asset', e.asset_id) ? `asset:${e.asset_id}` : has('product', null) ? '' : has('artist', e.artist_id) ? `artist:${e.artist_id}` : null);
            // what the ledger credited (royalty and revenue_share entries)
            const credited = sum(ledger.filter((l) => l.tenant_user_id === p && (l.kind === 'royalty' || l.kind === 'revenue_share')).map((l) => l.amount));
            const want = new Map<string, Decimal>();
            for (const key of new Set(mine.filter((x) => x.target_type).map((x) => `${x.target_type}:${x.target_id}`))) {
              // per file, the target's earnings floored to the cent (never more than the file credited)
              const claimed = lines.filter((e) => claim(e) === key);
              const pool = sum([...new Set(claimed.map((e) => e.file_id))].map((f) => sum(claimed.filter((e) => e.file_id === f).map((e) => e.amount)).toDecimalPlaces(2, Decimal.ROUND_FLOOR)));
              let before = D(0);
              for (const x of order(mine.filter((m) => `${m.target_type}:${m.target_id}` === key))) {
                want.set(x.id, Decimal.min(D(x.base_amount), Decimal.max(0, pool.minus(before))));
                before = before.plus(x.base_amount);
              }
            }
            // the targets together take at most what was credited (nothing when it is negative),
            // served oldest expense first across targets
            let left = Decimal.max(0, credited);
            let targeted = D(0);
            for (const x of order(mine.filter((m) => m.target_type))) {
              const r = Decimal.min(want.get(x.id)!, left);
              model.set(x.id, r);
              left = left.minus(r);
              targeted = targeted.plus(r);
            }
            // what the ledger credited minus what the targets took
            const general = credited.minus(targeted);
            let before = D(0);
            for (const x of order(mine.filter((m) => !m.target_type))) {
              model.set(x.id, Decimal.min(D(x.base_amount), Decimal.max(0, general.minus(before))));
              before = before.plus(x.base_amount);
            }
          }
          for (const x of expenses) {
            const got = sum(ledger.filter((l) => l.source_type === 'expense' && l.source_id === x.id).map((l) => l.amount)).neg();
            assert.equal(got.toFixed(), (model.get(x.id) ?? D(0)).toFixed(), `expense ${x.id} recouped`);
          }
          for (const p of payees) {
            const k = (kind: string) => sum(ledger.filter((l) => l.tenant_user_id === p && l.kind === kind).map((l) => l.amount));
            const due = sum(ledger.filter((l) => l.tenant_user_id === p).map((l) => l.amount));
            const earned = k('royalty').plus(k('revenue_share'));
            // identity 2: due = earnings − recouped − payments + reversals (+ adjustments) + overpayment recovery
            assert.equal(due.toFixed(), earned.minus(k('expense_recoup').neg()).minus(k('payment').neg()).plus(k('reversal')).plus(k('adjustment')).plus(k('overpayment_recovery')).toFixed());
            // and the ledger agrees with the source rows
            const fromSources = sum(earnings.filter((e) => e.tenant_user_id === p).map((e) => e.amount))
              .plus(sum(shares.filter((s) => s.tenant_user_id === p).map((s) => s.amount)))
              .minus(sum(expenses.filter((x) => x.tenant_user_id === p).map((x) => model.get(x.id) ?? D(0))))
              .minus(sum(payments.filter((x) => x.tenant_user_id === p && x.status !== 'failed').map((x) => x.base_amount)));
            // due is never negative: a shortfall (paid or charged more than earned) is the overpayment receivable
            assert.equal(due.toFixed(), Decimal.max(0, fromSources).toFixed(), `payee ${p}`);
            assert.equal(k('overpayment_recovery').toFixed(), Decimal.max(0, fromSources.neg()).toFixed(), `payee ${p} recovery`);
            // …and so is the running balance through any accounting period
            const byPeriod = new Map<string, Decimal>();
            for (const l of ledger.filter((x) => x.tenant_user_id === p)) {
              const key = new Date(l.accounting_period).toISOString().slice(0, 10);
              byPeriod.set(key, (byPeriod.get(key) ?? D(0)).plus(l.amount));
            }
            let running = D(0);
            for (const key of [...byPeriod.keys()].sort()) {
              running = running.plus(byPeriod.get(key)!);
              assert.ok(running.gte(0), `payee ${p} balance through ${key}: ${running}`);
            }
          }
          const again = await refreshLedger(trx);
          assert.deepEqual(again, { royalty: 0, revenue: 0, payment: 0, recoupment: 0, recovery: 0 });
        });
        // the same identity through HTTP
        const s = await app.request('GET', `/accounting/transactions/summary?userId=${payees[1]}`, { token: t.users.admin!.token });
        const x = s.body.data;
        assert.equal(D(x.earnings).minus(x.recouped).minus(x.payments).plus(x.reversals).plus(x.adjustments).plus(x.overpaymentRecovery).toFixed(), D(x.due).toFixed());
        assert.equal(D(x.due).toFixed(), D((await app.request('GET', `/accounting/getcurrentdue?userId=${payees[1]}`, { token: t.users.admin!.token })).body.data.due).toFixed());
        const st = await app.request('GET', '/accounting/refreshstats', { token: t.users.admin!.token });
        assert.equal(st.body.data.consistent, true, JSON.stringify(st.body.data));
      }),
      { numRuns: 20 },
    );
  });
});
