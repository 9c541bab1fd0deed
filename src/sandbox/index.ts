/**
 * The partner sandbox: one local fake server per partner adapter, on loopback. Tests start
 * it on port 0 (`startSandbox()`), `npm run sandbox` on fixed ports (main.ts), and `env`
 * holds the variables that point Rondo at it.
 */
import { FakeProcessorServer } from './processor';
import { FakeFxPartner } from './fxpartner';
import { FakeInvoicer } from './invoicer';
import { FakeDistributor } from './distributor';
import { FakeSmsGateway } from './sms';

export { FakeProcessorServer, FakeFxPartner, FakeInvoicer, FakeDistributor, FakeSmsGateway };

export interface Sandbox {
  processor: FakeProcessorServer;
  fxpartner: FakeFxPartner;
  invoicer: FakeInvoicer;
  distributor: FakeDistributor;
  sms: FakeSmsGateway;
  /** NAME → value of every variable that points Rondo at this sandbox. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** First of five consecutive ports (processor, fxpartner, invoicer, distributor, sms); 0: any free ports. */
  basePort?: number;
  host?: string;
  /** Rondo's public URL: the processor fake sends its events to <rondoUrl>/processor/webhook. */
  rondoUrl?: string;
  /** Complete every payout / transfer on its own after this delay (off unless set). */
  autoSettleMs?: number | null;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  const port = (i: number) => (opts.basePort ? opts.basePort + i : 0);
  const processor = new FakeProcessorServer();
  const fxpartner = new FakeFxPartner();
  const invoicer = new FakeInvoicer();
  const distributor = new FakeDistributor();
  const sms = new FakeSmsGateway();
  const servers = [processor, fxpartner, invoicer, distributor, sms];
  try {
    for (const [i, s] of servers.entries()) await s.listen(port(i), host);
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  if (opts.rondoUrl) processor.webhookUrl = `${opts.rondoUrl.replace(/\/$/, '')}/processor/webhook`;
  processor.autoSettleMs = opts.autoSettleMs ?? null;
  fxpartner.autoSettleMs = opts.autoSettleMs ?? null;
  const env = {
    PROCESSOR_API_URL: processor.url,
    FXPARTNER_API_URL: fxpartner.url,
    INVOICER_API_URL: `${invoicer.url}/api/v1`,
    INVOICER_AUTHORIZE_URL: `${invoicer.url}/oauth/authorize`,
    INVOICER_TOKEN_URL: `${invoicer.url}/oauth/token`,
    INVOICER_CLIENT_ID: invoicer.client.clientId,
    INVOICER_CLIENT_SECRET: invoicer.client.clientSecret,
    DISTRIBUTOR_API_URL: `${distributor.url}/v1`,
    SMS_GATEWAY_URL: sms.url,
    SMS_GATEWAY_KEY: sms.key ?? '',
  };
  return {
    processor,
    fxpartner,
    invoicer,
    distributor,
    sms,
    env,
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
