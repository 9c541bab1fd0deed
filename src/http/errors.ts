/**
 * One error path: services throw AppError subclasses; this middleware shapes them per the
 * area of the route (docs/errors.md, "Error shapes"); anything unknown is a 500 with the request id logged.
 */
import type { Context, Next } from 'koa';
import { AppError, ConflictError, PG, pgCode, RateLimitError, ValidationError } from '../lib/errors';

/** Error body shapes by area (docs/errors.md, "Error shapes"). */
export type ErrorShape = 'catalogue' | 'status' | 'processor' | 'agreement';

export function errorBody(shape: ErrorShape, status: number, code: string, message: string, details: string[] | Record<string, unknown>): unknown {
  // Expired access tokens have their own shape wherever they happen.
  if (code === 'TOKEN_EXPIRED') return { error: { status, message } };
  switch (shape) {
    case 'catalogue':
      return { success: false, error: { code, message, details: Array.isArray(details) ? details : Object.values(details).map(String) } };
    case 'processor':
      return { status: 'error', message, code, details: Array.isArray(details) ? { errors: details } : details };
    case 'agreement': {
      // no details field in this shape: the problems (each naming its field) follow the message
      const lines = Array.isArray(details) ? details : [];
      return { message: lines.length ? `${message}: ${lines.join('; ')}` : message, error: code };
    }
    default:
      // the spec's {status, message}, plus the code (PERIOD_CLOSED, VALIDATION_ERROR…) a client can act on
      return { status: 'error', message, code, ...(Array.isArray(details) && details.length ? { details } : {}) };
  }
}

export function errorMiddleware() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        const shape: ErrorShape = ctx.state.errorShape ?? 'status';
        ctx.status = 404;
        ctx.body = errorBody(shape, 404, 'NOT_FOUND', 'Route not found', []);
      }
    } catch (raw) {
      let err = raw;
      if (pgCode(err) === PG.UNIQUE_VIOLATION) err = new ConflictError('A record with the same unique value already exists', [String((raw as { detail?: string }).detail ?? '')]);
      // e.g. removing a member who still holds a split share (RESTRICT): a clear 400, not a 500
      if (pgCode(err) === PG.FOREIGN_KEY_VIOLATION || pgCode(err) === PG.RESTRICT_VIOLATION) err = new ConflictError('This record is still used by other records; change or remove those first', [String((raw as { detail?: string }).detail ?? '')], 'IN_USE');
      // Last line of defence: a value validation let through that Postgres cannot hold
      // (class 22, data exception: numeric or date out of range, bad characters, invalid
      // text representation) or nests too deep for it (54001) is the caller's input: 400.
      const code = pgCode(err);
      if (code && (code.startsWith('22') || code === '54001') && (raw as { severity?: string }).severity) {
        ctx.state.log?.warn({ err: raw, requestId: ctx.state.requestId }, 'value refused by Postgres (validation should name it first)');
        err = new ValidationError('Invalid value', [String((raw as Error).message)], 'INVALID_VALUE');
      }
      const shape: ErrorShape = ctx.state.errorShape ?? 'status';
      if (err instanceof AppError) {
        ctx.status = err.status === 409 ? 400 : err.status; // the spec's codes have no 409
        if (err instanceof RateLimitError) ctx.set('Retry-After', String(err.retryAfterSeconds));
        ctx.body = errorBody(shape, ctx.status, err.code, err.message, err.details);
        if (err.status >= 500) ctx.state.log?.error({ err: raw }, 'request failed');
        return;
      }
      const status = (err as { status?: number; expose?: boolean }).status;
      if (status && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
        // Koa/body-parser client errors (malformed JSON, body too large…)
        ctx.status = status === 413 ? 400 : status;
        ctx.body = errorBody(shape, ctx.status, status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', (err as Error).message, []);
        return;
      }
      ctx.state.log?.error({ err: raw, requestId: ctx.state.requestId }, 'unhandled error');
      ctx.status = 500;
      ctx.body = errorBody(shape, 500, 'INTERNAL', 'Internal server error', [`requestId: ${ctx.state.requestId}`]);
    }
  };
}
