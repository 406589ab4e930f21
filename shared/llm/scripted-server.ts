// A scripted OpenAI-compatible chat-completions server on loopback, for the tests and the bench
// (no model runs on these machines): each request takes the next scripted reply, or the `respond`
// function decides. Replies: a JSON completion (answer, tool calls), an HTTP error, malformed
// JSON, an SSE stream dribbled chunk by chunk, or no answer at all (hang). Every request is
// recorded (body and headers) so a test can check what the model was sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ToolSpec } from './client.js';

export type Reply =
  | { kind: 'json'; status?: number; body: unknown }
  | { kind: 'raw'; status: number; text: string; contentType?: string }
  | { kind: 'sse'; chunks: unknown[]; delayMs: number }
  | { kind: 'hang' };

export interface Received {
  body: { model?: string; messages: ChatMessage[]; tools?: ToolSpec[]; stream?: boolean };
  headers: http.IncomingHttpHeaders;
  path: string;
}

let ids = 0;
const completion = (model: string, message: Record<string, unknown>, finish: string) => ({
  id: `chatcmpl-${++ids}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
});

/** Builders for the usual replies. */
export const reply = {
  answer: (content: string, model = 'scripted-model'): Reply => ({ kind: 'json', body: completion(model, { content }, 'stop') }),
  toolCalls: (calls: Array<{ name: string; args: Record<string, unknown> | string }>, model = 'scripted-model'): Reply => ({
    kind: 'json',
    body: completion(model, {
      content: null,
      tool_calls: calls.map((c, i) => ({ id: `call_${ids}_${i}`, type: 'function', function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) } })),
    }, 'tool_calls'),
  }),
  error: (status: number, message: string): Reply => ({ kind: 'json', status, body: { error: { message, type: 'scripted', code: status } } }),
  malformed: (): Reply => ({ kind: 'raw', status: 200, text: '{"choices": [ {"message": ', contentType: 'application/json' }),
  hang: (): Reply => ({ kind: 'hang' }),
  /** The answer in `pieces` SSE chunks, one every `delayMs`, then [DONE]. */
  slowStream: (content: string, pieces: number, delayMs: number, model = 'scripted-model'): Reply => {
    const size = Math.ceil(content.length / pieces);
    const parts = Array.from({ length: pieces }, (_, i) => content.slice(i * size, (i + 1) * size));
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id: `chatcmpl-${++ids}`, object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }] });
    return { kind: 'sse', delayMs, chunks: [chunk({ role: 'assistant' }, null), ...parts.map((p) => chunk({ content: p }, null)), chunk({}, 'stop')] };
  },
};

export class ScriptedLlm {
  readonly received: Received[] = [];
  private readonly script: Reply[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private server?: http.Server;
  /** Decides when the script is empty (default: an answer echoing the last message). */
  respond: (r: Received) => Reply = (r) => reply.answer(`echo: ${String(r.body.messages.at(-1)?.content ?? '')}`);

  /** Queues replies for the next requests, in order. */
  push(...replies: Reply[]): this {
    this.script.push(...replies);
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/v1`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (b: Buffer) => (text += String(b)));
      req.on('end', () => {
        let body: Received['body'];
        try {
          body = JSON.parse(text) as Received['body'];
        } catch {
          res.writeHead(400).end('{"error": {"message": "bad JSON"}}');
          return;
        }
        const r: Received = { body, headers: req.headers, path: req.url ?? '' };
        this.received.push(r);
        this.send(this.script.shift() ?? this.respond(r), res);
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private send(r: Reply, res: http.ServerResponse): void {
    if (r.kind === 'hang') return; // never answers; close() ends the socket
    if (r.kind === 'json') {
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
      return;
    }
    if (r.kind === 'raw') {
      res.writeHead(r.status, { 'content-type': r.contentType ?? 'text/plain' }).end(r.text);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const lines = [...r.chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
    const next = () => {
      const line = lines.shift();
      if (line === undefined || res.destroyed) return void res.end();
      res.write(line);
      setTimeout(next, r.delayMs);
    };
    next();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
