/**
 * The process edge: no single request (or job) can stop the process.
 *
 * - `requestContext` carries the request id through everything a request starts (callbacks,
 *   promises, stream events), so an error that escapes its handler is still logged with it.
 * - `installProcessGuards` logs an unhandled rejection or an uncaught exception (with the
 *   request id when one is known) and keeps serving: the request it belonged to has already
 *   failed or will time out, every other request and job goes on. Streams are piped with
 *   `stream.pipeline` or have their own `error` listeners; this is the net under them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestScope>();

/** The request id of the code running now, if it runs on behalf of a request. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

interface Logger {
  error(obj: object, msg: string): void;
}

let installed: { rejection: (...a: any[]) => void; exception: (...a: any[]) => void } | null = null;

/** Installs the two process handlers once (later calls are no-ops); returns the uninstaller. */
export function installProcessGuards(log: Logger): () => void {
  if (installed) return () => undefined;
  const rejection = (reason: unknown) => {
    log.error({ err: reason, requestId: currentRequestId(), kind: 'unhandledRejection' }, 'unhandled promise rejection (process keeps running)');
  };
  const exception = (err: Error, origin: string) => {
    log.error({ err, requestId: currentRequestId(), kind: origin }, 'uncaught exception (process keeps running)');
  };
  process.on('unhandledRejection', rejection);
  process.on('uncaughtException', exception);
  installed = { rejection, exception };
  return () => {
    process.off('unhandledRejection', rejection);
    process.off('uncaughtException', exception);
    installed = null;
  };
}
