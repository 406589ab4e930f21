// GET /api/events: Server-Sent Events of every new envelope (from the telemetry feed, within a
// poll period of the agent's write) and of agent state changes (supervisor status, presence, DF).
// A slow browser only loses its own events: writes that do not drain drop the client.
import type { FastifyInstance } from 'fastify';
import type { TraceRecord } from '../trace/types.js';
import type { TelemetryFeed } from './feed.js';

interface AgentsBody { agents: { name: string; supervisor: { status: string }; presence: string; df: { registered: boolean } }[] }

export function registerEvents(app: FastifyInstance, feed: TelemetryFeed, agents: () => Promise<unknown>): { close(): void } {
  const clients = new Set<(event: string, data: unknown) => boolean>();
  /** Clients that asked for agent state changes: only they make the console ask ejabberd each second. */
  const agentClients = new Set<(event: string, data: unknown) => boolean>();
  const envelopeClients = new Set<(event: string, data: unknown) => boolean>();
  feed.on('rows', (rows: TraceRecord[]) => {
    for (const send of envelopeClients) send('envelopes', rows);
  });
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
      summary: 'Server-Sent Events: `envelopes` (new telemetry rows, headers only) and `agents` (state changes); `topics` picks them (default both)',
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
    if (topics.has('envelopes')) envelopeClients.add(send);
    if (topics.has('agents')) {
      agentClients.add(send);
      last = new Map(); // a new client gets every agent's state once
    }
    const ping = setInterval(() => res.write(': ping\n\n'), 15000);
    req.raw.on('close', () => {
      clearInterval(ping);
      clients.delete(send);
      envelopeClients.delete(send);
      agentClients.delete(send);
    });
  });
  return {
    close() {
      clearInterval(watch);
      for (const set of [clients, envelopeClients, agentClients]) set.clear();
    },
  };
}
