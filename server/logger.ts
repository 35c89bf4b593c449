// pino JSON logs; one child logger per component. Secrets never reach a log line.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, name = 'rehearsal'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['*.password', '*.token', '*.authorization', 'req.headers.authorization', '*.license', '*.privateKey'],
      censor: '[redacted]',
    },
  });
}
