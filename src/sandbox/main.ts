/**
 * `npm run sandbox`: start every partner fake on loopback, print the variables that point
 * Rondo at them (one NAME=value line each, nothing else on stdout), then stay up until
 * interrupted.
 *
 *   SANDBOX_PORT        first of five consecutive ports (default 4701; 0: any free ports)
 *   SANDBOX_RONDO_URL   where Rondo listens, for the processor's webhook events (default http://localhost:3000)
 *   SANDBOX_SETTLE_MS   payouts and transfers complete on their own after this delay (default 2000; "off" to settle by hand)
 */
import { startSandbox } from './index';

const portEnv = process.env.SANDBOX_PORT;
const basePort = portEnv === undefined || portEnv === '' ? 4701 : Number(portEnv);
if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65530) {
  process.stderr.write(`SANDBOX_PORT must be a port number, got "${portEnv}"\n`);
  process.exit(2);
}
const settle = process.env.SANDBOX_SETTLE_MS ?? '2000';
const sb = await startSandbox({
  basePort,
  rondoUrl: process.env.SANDBOX_RONDO_URL || 'http://localhost:3000',
  autoSettleMs: settle === 'off' ? null : Number(settle) || 0,
});
for (const [k, v] of Object.entries(sb.env)) process.stdout.write(`${k}=${v}\n`);
process.stderr.write('partner sandbox up (Ctrl-C stops it); faults: POST <fake>/_sandbox/faults {"kind":"timeout"|"5xx","match":"POST /v1/payouts"}\n');
const stop = () => void sb.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
