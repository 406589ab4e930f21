// The Parley Console (issue 13): HTTP API, dashboard, live sniffer and web chat of one instance.
// startConsole wires the telemetry feed, the optional OpenTelemetry export, retention and the
// HTTP server; agents/console/main.ts runs it as a supervised process.
import type { FastifyInstance } from 'fastify';
import { type ParleyConfig, paths } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { ConsoleAuth, ensureConsoleToken } from './auth.js';
import { pruneTelemetry, TelemetryFeed } from './feed.js';
import { buildConsole } from './server.js';
import type { ConsoleSettings } from './settings.js';

export { ConsoleAuth, ensureConsoleToken, SESSION_COOKIE } from './auth.js';
export { BUSY_ROWS_PER_S, TelemetryFeed, pruneTelemetry, SAMPLE_ROWS } from './feed.js';
export { BUSY_FLUSH_MS, FLUSH_MS, MAX_ROWS_PER_FLUSH, Outbox } from './events.js';
export { openApiDocument } from './openapi.js';
export { type Builder, type Compiled, lazyCompilers, lazyRoutes } from './lazy-compilers.js';

export interface RunningConsole {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** `prepareOps` runs once before the service layer (shared/ops) is first used: it is imported then. */
export async function startConsole(cfg: ParleyConfig, s: ConsoleSettings, logger: Logger, prepareOps?: () => Promise<void>): Promise<RunningConsole> {
  const auth = new ConsoleAuth(ensureConsoleToken(s.tokenFile), s.sessionTtlMs);
  const feed = new TelemetryFeed(paths(cfg).telemetry);
  feed.start();
  // Loaded only when asked for: with PARLEY_OTLP_URL unset no OpenTelemetry code runs at all.
  const tracer = s.otlpUrl ? new (await import('./otel.js')).ConversationTracer({ url: s.otlpUrl, domain: cfg.domain }) : undefined;
  if (tracer) feed.on('rows', (rows) => tracer.add(rows));
  const prune = () => {
    try {
      const n = pruneTelemetry(paths(cfg).telemetry, s.retentionDays);
      if (n) logger.info({ deleted: n, retentionDays: s.retentionDays }, 'telemetry pruned');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'telemetry pruning failed');
    }
  };
  const pruneTimer = setInterval(prune, 3600000);
  pruneTimer.unref();
  setTimeout(prune, 30000).unref(); // not during start-up, when the agents are busiest
  const app = await buildConsole({ cfg, auth, feed, ...(prepareOps ? { prepareOps } : {}) });
  await app.listen({ host: s.bind, port: s.port });
  const url = `http://${s.bind.includes(':') ? `[${s.bind}]` : s.bind}:${s.port}/`;
  return {
    app,
    url,
    async close() {
      clearInterval(pruneTimer);
      await app.close();
      feed.stop();
      await tracer?.close();
    },
  };
}
