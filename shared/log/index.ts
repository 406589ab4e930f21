// One structured logger (pino) for every agent: JSON lines on stdout, which the supervisor
// writes to $PARLEY_HOME/logs/<agent>.log. Secrets are redacted by path.
import { pino, type Logger as PinoLogger } from 'pino';
import { envString } from '../config/index.js';

export type Logger = PinoLogger;

export function createLogger(name: string, level = envString('PARLEY_LOG_LEVEL') as string): Logger {
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
