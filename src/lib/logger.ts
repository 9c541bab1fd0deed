import { pino, type Logger } from 'pino';

export type { Logger };

/** `dest`: where lines go (default stdout); tests pass a stream to read them back. */
export function createLogger(level: string, dest?: NodeJS.WritableStream): Logger {
  const opts = {
    level,
    base: { service: 'rondo' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', 'password', 'new_password', '*.password', 'token', '*.token', 'apiKey', '*.apiKey', 'webhookSecret', '*.webhookSecret', 'secretKey', '*.secretKey'],
  };
  return dest ? pino(opts, dest as never) : pino(opts);
}
