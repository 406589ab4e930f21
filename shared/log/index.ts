// One structured logger (pino) for every agent: JSON lines on stdout, which the supervisor
// writes to $PARLEY_HOME/logs/<agent>.log. Secrets are redacted by path.
import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export function createLogger(name: string, level = process.env.PARLEY_LOG_LEVEL || 'info'): Logger {
  return pino({
    name,
    level,
    base: { agent: name },
    redact: { paths: ['password', '*.password', 'privateKey', '*.privateKey', 'secret', '*.secret'], censor: '[secret]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A logger that discards everything (unit tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
