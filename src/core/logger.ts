import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs on stderr: stdout belongs to the stdio MCP transport.
 * Anything that looks like a credential is redacted by path as a second line of defence;
 * the first is never handing secrets to the logger at all.
 */
export function createLogger(level: string = process.env.TOOLSERVERS_LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name: 'toolservers',
      level,
      redact: {
        paths: [
          'headers.authorization',
          'headers.Authorization',
          '*.headers.authorization',
          '*.headers.Authorization',
          'token',
          '*.token',
          'accessToken',
          '*.accessToken',
          'access_token',
          'refresh_token',
          'client_secret',
          'serverKey',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: 2, sync: true }),
  );
}

/** A logger that discards everything, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
