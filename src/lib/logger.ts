import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'rondo' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', 'password', 'new_password', '*.password', 'token', '*.token', 'apiKey', '*.apiKey', 'webhookSecret', '*.webhookSecret', 'secretKey', '*.secretKey'],
  });
}
