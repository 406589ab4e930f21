// An OpenAI-compatible chat-completions client (POST {PARLEY_LLM_URL}/chat/completions: Ollama,
// llama.cpp server, vLLM, hosted APIs) on node's own fetch. It runs in the specialist process,
// never in a skill's sandbox: the key stays out of every skill's reach (docs/llm.md). Streams
// (SSE, `stream: true`) and plain JSON answers are both read. The timeout is an inactivity
// timeout: the longest wait for the first byte or between two chunks, so a slow but living
// stream finishes while a server that never answers ends in LLM_TIMEOUT. No error message ever
// carries the key, even when a server echoes it back.

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface LlmSettings {
  url: string;
  model: string;
  key?: string;
  timeoutMs: number;
  stream: boolean;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Overrides the settings' stream choice (the bench compares both). */
  stream?: boolean;
}

export interface ChatAnswer {
  message: ChatMessage;
  /** The model that answered (the server's `model`, else the configured one). */
  model: string;
  finish_reason?: string;
}

export type LlmErrorCode = 'LLM_TIMEOUT' | 'LLM_HTTP' | 'LLM_BAD_RESPONSE' | 'LLM_UNREACHABLE' | 'LLM_NOT_CONFIGURED' | 'LLM_DENIED';

export class LlmError extends Error {
  constructor(readonly code: LlmErrorCode, detail: string) {
    super(`${code}: ${detail}`);
    this.name = 'LlmError';
  }
}

export function endpoint(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(u) ? u : `${u}/chat/completions`;
}

/** Text safe for a message or a log: the key (and any bearer token) blanked, short. */
export function redact(text: string, key?: string): string {
  let out = key ? text.split(key).join('***') : text;
  out = out.replace(/Bearer\s+[^\s"',}]+/gi, 'Bearer ***');
  return out.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** One chat completion; throws LlmError with a reason a person or operator can read. */
export async function chatCompletion(s: LlmSettings, req: ChatRequest): Promise<ChatAnswer> {
  const stream = req.stream ?? s.stream;
  const body = JSON.stringify({ model: s.model, messages: req.messages, ...(req.tools?.length ? { tools: req.tools } : {}), stream });
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  // Re-armed on every chunk: inactivity, not total time (a slow stream is alive).
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, s.timeoutMs);
  };
  const where = endpoint(s.url);
  arm();
  try {
    let res: Response;
    try {
      res = await fetch(where, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream, application/json' : 'application/json', ...(s.key ? { authorization: `Bearer ${s.key}` } : {}) },
        body, signal: ac.signal,
      });
    } catch (err) {
      if (timedOut) throw new LlmError('LLM_TIMEOUT', `the model server at ${where} did not answer within ${s.timeoutMs} ms`);
      throw new LlmError('LLM_UNREACHABLE', `the model server at ${where} cannot be reached (${redact(causeOf(err), s.key)})`);
    }
    const text = await readBody(res, arm).catch((err: unknown) => {
      if (timedOut) throw new LlmError('LLM_TIMEOUT', `the model server at ${where} went silent for ${s.timeoutMs} ms while answering`);
      throw new LlmError('LLM_UNREACHABLE', `the model server's answer broke off (${redact(causeOf(err), s.key)})`);
    });
    if (!res.ok) {
      const why = res.status === 401 || res.status === 403 ? ' (check the key: PARLEY_LLM_KEY / secrets/llm.key)' : '';
      throw new LlmError('LLM_HTTP', `the model server answered HTTP ${res.status}${why}: ${redact(errorText(text), s.key) || res.statusText}`);
    }
    const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream') || /^\s*data:/.test(text);
    return isSse ? readSse(text, s) : readJson(text, s);
  } finally {
    clearTimeout(timer);
  }
}

function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

async function readBody(res: Response, onChunk: () => void): Promise<string> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    onChunk();
    text += decoder.decode(chunk, { stream: true });
    if (text.length > 4_000_000) throw new Error('answer larger than 4 MB');
  }
  return text + decoder.decode();
}

function errorText(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof j.error === 'string' ? j.error : j.error?.message ?? j.message;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON: the raw text, shortened
  }
  return text;
}

const bad = (s: LlmSettings, why: string, text: string) => new LlmError('LLM_BAD_RESPONSE', `the model server's answer is not a chat completion (${why}): ${redact(text, s.key).slice(0, 120)}`);

function readJson(text: string, s: LlmSettings): ChatAnswer {
  let j: { model?: unknown; choices?: Array<{ message?: Partial<ChatMessage>; finish_reason?: string }> };
  try {
    j = JSON.parse(text) as typeof j;
  } catch {
    throw bad(s, 'malformed JSON', text);
  }
  const choice = Array.isArray(j?.choices) ? j.choices[0] : undefined;
  if (!choice?.message || typeof choice.message !== 'object') throw bad(s, 'no choices[0].message', text);
  return finish(s, j.model, choice.message, choice.finish_reason, text);
}

interface Delta { content?: string | null; tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> }

/** An SSE stream of chat.completion.chunk events: content and tool-call pieces put together. */
function readSse(text: string, s: LlmSettings): ChatAnswer {
  let content = '';
  let model: unknown;
  let finishReason: string | undefined;
  const calls: Array<{ id: string; name: string; args: string }> = [];
  let events = 0;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') break;
    let j: { model?: unknown; choices?: Array<{ delta?: Delta; finish_reason?: string | null }>; error?: { message?: string } };
    try {
      j = JSON.parse(data) as typeof j;
    } catch {
      throw bad(s, 'malformed JSON in the stream', data);
    }
    if (j.error) throw new LlmError('LLM_HTTP', `the model server reported an error mid-stream: ${redact(String(j.error.message ?? ''), s.key)}`);
    events += 1;
    model ??= j.model;
    const c = j.choices?.[0];
    if (c?.finish_reason) finishReason = c.finish_reason;
    if (typeof c?.delta?.content === 'string') content += c.delta.content;
    for (const t of c?.delta?.tool_calls ?? []) {
      const i = t.index ?? calls.length;
      const slot = (calls[i] ??= { id: '', name: '', args: '' });
      if (t.id) slot.id = t.id;
      if (t.function?.name) slot.name += t.function.name;
      if (t.function?.arguments) slot.args += t.function.arguments;
    }
  }
  if (events === 0) throw bad(s, 'an empty stream', text);
  const tool_calls = calls.filter(Boolean).map((c, i): ToolCall => ({ id: c.id || `call_${i}`, type: 'function', function: { name: c.name, arguments: c.args } }));
  return finish(s, model, { role: 'assistant', content: content || null, ...(tool_calls.length ? { tool_calls } : {}) }, finishReason, text);
}

function finish(s: LlmSettings, model: unknown, m: Partial<ChatMessage>, finishReason: string | undefined, text: string): ChatAnswer {
  const content = typeof m.content === 'string' ? m.content : null;
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  for (const c of calls) {
    if (typeof c?.function?.name !== 'string') throw bad(s, 'a tool call without a function name', text);
  }
  if (content === null && calls.length === 0) throw bad(s, 'neither content nor tool calls', text);
  const tool_calls = calls.map((c, i): ToolCall => ({
    id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, type: 'function',
    function: { name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}) },
  }));
  return {
    message: { role: 'assistant', content, ...(tool_calls.length ? { tool_calls } : {}) },
    model: typeof model === 'string' && model ? model : s.model,
    ...(finishReason ? { finish_reason: finishReason } : {}),
  };
}
