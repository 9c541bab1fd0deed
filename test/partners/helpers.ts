/**
 * Partner tests: a real Rondo pointed at the partner sandbox (the same fakes `npm run
 * sandbox` starts), with every response body and every log line of the run captured, so a
 * test can assert that no credential ever comes back out.
 */
import { Writable } from 'node:stream';
import assert from 'node:assert/strict';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { createLogger } from '../../src/lib/logger';
import { startTestApp, type TestApp } from '../helpers/app';

export interface PartnerRun {
  app: TestApp;
  sb: Sandbox;
  /** Every response body (text) Rondo sent in this run. */
  bodies: string[];
  /** Every log line Rondo wrote in this run (debug level and up). */
  logs: string[];
  /** None of `secrets` appears in any captured body or log line. */
  assertNoLeak(secrets: string[]): void;
  close(): Promise<void>;
}

export async function startPartnerRun(opts: { workers?: boolean } = {}): Promise<PartnerRun> {
  const sb = await startSandbox();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const app = await startTestApp({
    workers: opts.workers,
    log: createLogger('debug', sink),
    config: {
      processorApiUrl: sb.env.PROCESSOR_API_URL,
      fxpartnerApiUrl: sb.env.FXPARTNER_API_URL,
      distributorApiUrl: sb.env.DISTRIBUTOR_API_URL,
      invoicer: {
        apiUrl: sb.env.INVOICER_API_URL!,
        authorizeUrl: sb.env.INVOICER_AUTHORIZE_URL!,
        tokenUrl: sb.env.INVOICER_TOKEN_URL!,
        clientId: sb.env.INVOICER_CLIENT_ID!,
        clientSecret: sb.env.INVOICER_CLIENT_SECRET!,
        redirectUri: null,
        scope: 'invoices',
      },
      // a partner that does not answer is given up on quickly (the sandbox's `timeout` fault)
      partnerTimeoutMs: 2000,
    },
  });
  // callbacks go to this test app
  app.cfg.publicUrl = app.url;
  sb.processor.webhookUrl = `${app.url}/processor/webhook`;
  const bodies: string[] = [];
  const request = app.request.bind(app);
  app.request = async (method, path, opts) => {
    const r = await request(method, path, opts);
    bodies.push(r.text);
    return r;
  };
  return {
    app,
    sb,
    bodies,
    logs,
    assertNoLeak(secrets) {
      assert.ok(bodies.length > 0 && logs.length > 0, 'the run captured responses and log lines');
      for (const s of secrets) {
        assert.ok(s.length >= 8, 'a secret worth scanning for');
        const inBody = bodies.find((b) => b.includes(s));
        const inLog = logs.find((l) => l.includes(s));
        assert.equal(inBody, undefined, `a response body carries a secret ending ${s.slice(-4)}`);
        assert.equal(inLog, undefined, `a log line carries a secret ending ${s.slice(-4)}`);
      }
    },
    async close() {
      await app.close();
      await sb.close();
    },
  };
}
