/**
 * The few typed errors services throw. One Koa middleware (src/http/errors.ts) maps them
 * to the error shape for the area of the route (docs/errors.md, "Error shapes").
 */
export class AppError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly details: string[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details: string[] = [], code = 'VALIDATION_ERROR') {
    super(400, code, message, details);
  }
}

/**
 * A name shown in headers, e-mails and documents (a workspace, a sender) is one line: a CR or
 * LF in it could start a new header or line where it is written. 400 naming the field.
 */
export function assertOneLine(value: string | null | undefined, field: string, what: string): void {
  if (value && /[\r\n]/.test(value)) throw new ValidationError(`Invalid ${what}`, [`${field} must not hold line breaks`]);
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized', code = 'UNAUTHORIZED') {
    super(401, code, message);
  }
}

/** Access token past its expiry: its own body shape (docs/errors.md). */
export class TokenExpiredError extends AppError {
  constructor() {
    super(401, 'TOKEN_EXPIRED', 'JWT token expired');
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', code = 'FORBIDDEN') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource', code = 'NOT_FOUND') {
    super(404, code, `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details: string[] = [], code = 'CONFLICT') {
    super(409, code, message, details);
  }
}

export class RateLimitError extends AppError {
  constructor(public readonly retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', 'Too many requests, try again later');
  }
}

/** Postgres error codes we act on, by name. */
export const PG = {
  UNIQUE_VIOLATION: '23505',
  FOREIGN_KEY_VIOLATION: '23503',
  RESTRICT_VIOLATION: '23001',
  CHECK_VIOLATION: '23514',
  INVALID_TEXT_REPRESENTATION: '22P02',
  INSUFFICIENT_PRIVILEGE: '42501',
} as const;

export function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
