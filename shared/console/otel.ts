// Every conversation as an OpenTelemetry trace (issue 13), exported over OTLP/HTTP when
// PARLEY_OTLP_URL is set; without it this module is never loaded (no cost when off). Built
// after the fact from the telemetry the agents already write (feed.ts), so tracing adds nothing
// to any agent's hot path. One resource per agent (service.name = the agent), one trace per
// conversation whose trace id is derived from the conversation_id (sha-256), spans:
//   conversation            the first to the last envelope
//   <PERF> a → b            one per hop: the sender's out row to the receiver's in row
//   <agent> handles <PERF>  one per received envelope: its in row to the agent's next out row
import { createHash, randomBytes } from 'node:crypto';
import { context, SpanKind, trace, type Attributes, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { analyze, type TraceRecord } from '../trace/index.js';

/** Trace ids from conversation ids: an operator finds a conversation's trace by its id. */
export const traceIdOf = (conversationId: string) => createHash('sha256').update(conversationId).digest('hex').slice(0, 32);

class ConversationIds {
  nextTraceId = '';
  generateTraceId(): string {
    return this.nextTraceId || randomBytes(16).toString('hex');
  }
  generateSpanId(): string {
    return randomBytes(8).toString('hex');
  }
}

export interface OtelExporterOptions {
  url: string;
  domain: string;
  /** A conversation is exported once no row came for this long. */
  quietMs?: number;
}

export class ConversationTracer {
  private readonly pending = new Map<string, { rows: TraceRecord[]; last: number }>();
  private readonly providers = new Map<string, BasicTracerProvider>();
  private readonly ids = new ConversationIds();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: OtelExporterOptions) {
    this.timer = setInterval(() => this.sweep(), 250);
    this.timer.unref();
  }

  private provider(agent: string): BasicTracerProvider {
    let p = this.providers.get(agent);
    if (!p) {
      p = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': agent, 'service.namespace': 'parley' }),
        idGenerator: this.ids,
        spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: this.o.url }), { scheduledDelayMillis: 500 })],
      });
      this.providers.set(agent, p);
    }
    return p;
  }

  add(rows: TraceRecord[]): void {
    const now = Date.now();
    for (const r of rows) {
      if (!r.conversation_id) continue;
      const e = this.pending.get(r.conversation_id) ?? { rows: [], last: now };
      e.rows.push(r);
      e.last = now;
      this.pending.set(r.conversation_id, e);
    }
  }

  private sweep(): void {
    const cutoff = Date.now() - (this.o.quietMs ?? 1500);
    for (const [id, e] of this.pending) {
      if (e.last > cutoff) continue;
      this.pending.delete(id);
      try {
        this.export(id, e.rows);
      } catch {
        // a conversation that does not analyse is not worth a crash of the console
      }
    }
  }

  private export(conversationId: string, rows: TraceRecord[]): void {
    const a = analyze(rows, { conversationId, domain: this.o.domain });
    if (a.records.length === 0) return;
    const performatives = [...new Set(a.messages.map((m) => m.performative))];
    const common: Attributes = { 'parley.conversation_id': conversationId, conversation_id: conversationId };
    const t1 = Math.max(...a.records.map((r) => r.at));
    const first = a.records[0]!;
    this.ids.nextTraceId = traceIdOf(conversationId);
    const root = this.provider(first.agent).getTracer('parley').startSpan('conversation', {
      kind: SpanKind.INTERNAL, startTime: a.t0, attributes: { ...common, 'parley.performatives': performatives, 'parley.hops': a.messages.length, 'parley.violations': a.violations.length },
    });
    this.ids.nextTraceId = '';
    const parent: Context = trace.setSpan(context.active(), root);
    for (const m of a.messages) {
      const start = m.out?.at ?? m.in?.at ?? m.at;
      const end = m.in?.at ?? start;
      const span = this.provider(m.out?.agent ?? m.in?.agent ?? first.agent).getTracer('parley').startSpan(`${m.performative} ${short(m.sender)} → ${short(m.receiver)}`, {
        kind: SpanKind.PRODUCER, startTime: start,
        attributes: { ...common, 'parley.performative': m.performative, 'parley.sender': m.sender, 'parley.receiver': m.receiver, 'parley.content_type': m.content_type ?? '', 'parley.reply_with': m.reply_with, 'parley.in_reply_to': m.in_reply_to ?? '' },
      }, parent);
      span.end(end);
    }
    // Handling: each in row to the same agent's next out row in this conversation.
    for (const r of a.records) {
      if (r.direction !== 'in') continue;
      const next = a.records.find((x) => x.agent === r.agent && x.direction === 'out' && x.at >= r.at);
      const span = this.provider(r.agent).getTracer('parley').startSpan(`${r.agent} handles ${r.performative ?? '?'}`, {
        kind: SpanKind.CONSUMER, startTime: r.at, attributes: { ...common, 'parley.agent': r.agent, 'parley.performative': r.performative ?? '', 'parley.decision': r.decision },
      }, parent);
      span.end(next?.at ?? r.at);
    }
    root.end(t1);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const [id, e] of this.pending) this.export(id, e.rows);
    this.pending.clear();
    await Promise.all([...this.providers.values()].map((p) => p.forceFlush().then(() => p.shutdown()).catch(() => undefined)));
  }

  flush(): Promise<void> {
    this.sweep();
    return Promise.all([...this.providers.values()].map((p) => p.forceFlush())).then(() => undefined);
  }
}

const short = (jid: string) => jid.split('@')[0] ?? jid;
