/**
 * Demo partner connections for `npm run seed:demo`, made only for the partners whose
 * variables are set (run `npm run sandbox` and export what it prints): the FX partner
 * (a beneficiary linked to Ana and one payout request, which the sandbox completes and
 * reports back by callback), the distributor's credentials, and the invoicing partner
 * (when its consent screen is the local sandbox's: authorised and synced). Idempotent:
 * what is connected already is left alone.
 */
import type { DemoContext } from './context';
import { ANONYMOUS, type AuthContext } from '../modules/auth/tokens';
import { connectFx, linkBeneficiary, saveBeneficiary } from '../modules/partners/fxpartner';
import { createFxPaymentRequest } from '../modules/partners/fx-payouts';
import { setCredentials } from '../modules/distributor/service';
import { authUrl, exchangeToken, syncInvoices } from '../modules/partners/invoicer';
import { tx } from '../modules/partners/common';

export const partnersSeeder = {
  name: 'partners',
  async run({ svc, tenantId, users }: DemoContext): Promise<void> {
    const auth: AuthContext = { ...ANONYMOUS, kind: 'anonymous', tenantId, role: 'admin', tenantUserId: users.finance ?? null };
    const has = (table: string) => tx(svc, tenantId, async (trx) => !!(await trx(table).first()));
    if (svc.cfg.fxpartnerApiUrl && !(await has('fx_integrations'))) {
      await connectFx(svc, tenantId, { apiKey: 'demo-fx-key-moonlight', label: 'Demo FX account' }, 'create');
      const ben = await saveBeneficiary(svc, tenantId, { name: 'Ana Lima', currency: 'EUR', country: 'PT', accountNumber: 'PT50000201231234567890154' });
      await linkBeneficiary(svc, tenantId, String(ben.id), users.ana!);
      await createFxPaymentRequest(svc, tenantId, auth, { beneficiaryId: String(ben.id), amount: '25.00', currency: 'EUR', walletId: '2', reference: 'Demo payout' }, 1, 'demo-payout-0001');
    }
    if (svc.cfg.distributorApiUrl && !(await has('distributor_credentials'))) {
      await setCredentials(svc, tenantId, { token: 'demo-distributor-token-moonlight', webhookSecret: 'demo-distributor-webhook-secret' });
    }
    const inv = svc.cfg.invoicer;
    if (inv && /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(inv.authorizeUrl) && !(await has('invoicer_connections'))) {
      const { url, state } = await tx(svc, tenantId, (trx) => authUrl(trx, svc, auth));
      const consent = await fetch(url, { redirect: 'manual' });
      const code = new URL(consent.headers.get('location') ?? 'http://x/').searchParams.get('code');
      if (!code) return;
      await exchangeToken(svc, tenantId, code, state);
      await syncInvoices(svc, tenantId, auth, users.finance);
    }
  },
};
