// GET /api/events: Server-Sent Events of the newest envelopes (from the telemetry feed, within a
// poll period of the agent's write; at most ≈ 33 a second, the rest counted in `skipped`) and of
// agent state changes (supervisor status, presence, DF).
// A slow browser only loses its own events: writes that do not drain drop the client.
import type { FastifyInstance } from 'fastify';
import type { TraceRecord } from '../trace/index.js';
import { BUSY_ROWS_PER_S, type TelemetryFeed } from './feed.js';

/**
 * Rows a client gets per batch: ≈ 33 a second, more than a person can read. Each
 * row a browser draws costs its renderer (a software rasteriser on a server without a GPU) CPU
 * that the agents on the same cores would have used: at 400 rows a second a headless Chromium on
 * the sniffer took ≈ 12 % of a core (npm run bench -- --console, docs/bench.md).
 */
export const MAX_ROWS_PER_FLUSH = 20;
/** At most one batch per FLUSH_MS; the first rows after a quiet spell go out at once. */
export const FLUSH_MS = 600;
/**
 * Above BUSY_ROWS_PER_S (feed.ts, ≈ 10 conversations a second) the live view is a sample anyway
 * (a person sees 6 rows of each batch, the rest is counted): one batch a second then, which is
 * what a watching browser costs the agents (issue 13: ≤ 5 %). Quieter flows keep FLUSH_MS.
 */
export const BUSY_FLUSH_MS = 1000;

/**
 * One client's envelope stream: at most one batch every FLUSH_MS with at most MAX_ROWS_PER_FLUSH
 * of the newest rows; the rest is counted in a `skipped` event (the API has every row:
 * /api/messages). Leading edge: rows after a quiet spell are sent at once, so a new conversation
 * shows within the feed's poll period (issue 13: "within one second"); under a full-speed flow
 * the browser draws ≈ 27 rows a second whatever the load (the console costs the hot path ≤ 5 %).
 */
export class Outbox {
  private rows: TraceRecord[] = [];
  private skipped = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  /** Rows (sent or counted) since windowStart: the flow's rate, measured over about a second. */
  private windowStart = 0;
  private windowRows = 0;
  private busy = false;

  constructor(private readonly send: (event: string, data: unknown) => boolean, private readonly now: () => number = Date.now) {}

  /** `unread`: rows the feed counted but did not read (it reads only the newest of each poll). */
  push(rows: TraceRecord[], unread = 0): void {
    const now = this.now();
    this.windowRows += rows.length + unread;
    if (now - this.windowStart >= 1000) {
      this.busy = (this.windowRows * 1000) / Math.max(1, now - this.windowStart) >= BUSY_ROWS_PER_S;
      this.windowStart = now;
      this.windowRows = 0;
    }
    this.skipped += unread;
    this.rows.push(...rows);
    const over = this.rows.length - MAX_ROWS_PER_FLUSH;
    if (over > 0) {
      this.rows = this.rows.slice(over);
      this.skipped += over;
    }
    if (this.timer) return;
    const wait = Math.max(0, this.last + (this.busy ? BUSY_FLUSH_MS : FLUSH_MS) - now);
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.rows.length === 0 && this.skipped === 0) return;
    this.last = this.now();
    if (this.skipped > 0) this.send('skipped', { rows: this.skipped });
    if (this.rows.length > 0) this.send('envelopes', this.rows);
    this.rows = [];
    this.skipped = 0;
  }

  close(): void {
    clearTimeout(this.timer);
  }
}

interface AgentsBody { agents: { name: string; supervisor: { status: string }; presence: string; df: { registered: boolean } }[] }

export function registerEvents(app: FastifyInstance, feed: TelemetryFeed, agents: () => Promise<unknown>): { close(): void } {
  const clients = new Set<(event: string, data: unknown) => boolean>();
  /** Clients that asked for agent state changes: only they make the console ask ejabberd each second. */
  const agentClients = new Set<(event: string, data: unknown) => boolean>();
  const envelopeClients = new Map<(event: string, data: unknown) => boolean, Outbox>();
  // Subscribed only while a client streams envelopes: the feed then tails at its fast rate.
  const onRows = (rows: TraceRecord[], total: number) => {
    for (const box of envelopeClients.values()) box.push(rows, total - rows.length);
  };
  let last = new Map<string, string>();
  const watch = setInterval(() => {
    if (agentClients.size === 0) return;
    void (agents() as Promise<AgentsBody>).then((body) => {
      const now = new Map(body.agents.map((a) => [a.name, `${a.supervisor.status}/${a.presence}/${a.df.registered}`]));
      const changed = body.agents.filter((a) => last.get(a.name) !== now.get(a.name));
      const gone = [...last.keys()].filter((n) => !now.has(n));
      last = now;
      if (changed.length || gone.length) for (const send of agentClients) send('agents', { changed, gone });
    }, () => undefined);
  }, 1000);
  watch.unref();

  app.get<{ Querystring: { topics?: string } }>('/api/events', {
    schema: {
      summary: 'Server-Sent Events: `envelopes` (the newest telemetry rows, headers only, at most ≈ 33 a second; `skipped` counts the rest) and `agents` (state changes); `topics` picks them (default both)',
      tags: ['messages'],
      querystring: { type: 'object', additionalProperties: false, properties: { topics: { type: 'string', pattern: '^(envelopes|agents)(,(envelopes|agents))?$' } } },
    },
  }, (req, reply) => {
    const topics = new Set((req.query.topics ?? 'envelopes,agents').split(','));
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': parley console events\nretry: 1000\n\n');
    const send = (event: string, data: unknown): boolean => {
      if (res.writableLength > 4 * 1024 * 1024) {
        res.destroy(); // a client that does not read: it reconnects and catches up from the API
        return false;
      }
      return res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    clients.add(send);
    if (topics.has('envelopes')) {
      if (envelopeClients.size === 0) feed.on('sample', onRows);
      envelopeClients.set(send, new Outbox(send));
    }
    if (topics.has('agents')) {
      agentClients.add(send);
      last = new Map(); // a new client gets every agent's state once
    }
    const ping = setInterval(() => res.write(': ping\n\n'), 15000);
    req.raw.on('close', () => {
      clearInterval(ping);
      clients.delete(send);
      envelopeClients.get(send)?.close();
      envelopeClients.delete(send);
      if (envelopeClients.size === 0) feed.off('sample', onRows);
      agentClients.delete(send);
    });
  });
  return {
    close() {
      clearInterval(watch);
      for (const box of envelopeClients.values()) box.close();
      feed.off('sample', onRows);
      for (const set of [clients, envelopeClients, agentClients]) set.clear();
    },
  };
}
