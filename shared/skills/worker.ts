// A skill's worker process inside the sandbox (sandbox.ts; docs/skills.md "Sandbox"): imports
// exactly one handler module, answers `recognise`, `run` and `serve` (recognise, then run at once) requests one at a time, and reaches
// the host only through the IPC channel (ctx.use, ctx.a2a, ctx.llm). The host (pool.ts) owns the time
// limit (it kills this process when a call runs too long); the sandbox's RLIMIT_DATA ends any
// allocation past the memory limit. Nothing here can block or crash the specialist.
import type { ChatAnswer, HandlerModule, SkillContext, SkillResult, ToolSpec } from './handler-api.js';
import type { Recognition } from './manifest.js';
import type { FromWorker, ToWorker, WireError } from './wire.js';

interface Data {
  name: string;
  handlerUrl: string;
  recognise: Recognition;
  /** ctx.llm is offered (declared, granted, and the install has a model). */
  llm?: boolean;
}

const data = JSON.parse(process.argv[2] ?? '{}') as Data;
if (!process.send) throw new Error('worker.ts runs as a child process with an IPC channel');
const post = (m: FromWorker) => process.send?.(m);
// The specialist went away (killed, stopped): nothing is left to answer to.
process.on('disconnect', () => process.exit(0));

let mod: HandlerModule | undefined;
const patterns = (data.recognise.patterns ?? []).map((p) => new RegExp(p, 'i'));
const keywords = (data.recognise.keywords ?? []).map((k) => k.toLowerCase());
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 0;

function wireError(err: unknown): WireError {
  const e = err as { code?: unknown; message?: unknown };
  const code = e?.code === 'INVALID_ARGS' || e?.code === 'TIMEOUT' ? e.code : 'INTERNAL_ERROR';
  const detail = typeof e?.message === 'string' ? e.message.replace(/^(INVALID_ARGS|TIMEOUT): /, '') : String(err);
  return { code, detail: detail.slice(0, 1000) };
}

function score(question: string): number {
  let best = 0;
  if (patterns.some((p) => p.test(question))) best = data.recognise.score ?? 1;
  const q = question.toLowerCase();
  if (keywords.some((k) => q.includes(k))) best = Math.max(best, 0.5);
  if (data.recognise.module && mod?.recognise) {
    const s = mod.recognise(question);
    const n = typeof s === 'number' ? (Number.isFinite(s) ? s : 0) : s ? 1 : 0;
    best = Math.max(best, Math.min(1, Math.max(0, n)));
  }
  return best;
}

function call(method: 'use' | 'a2a' | 'llm', target: string, input: Record<string, unknown>, session_id: string): Promise<unknown> {
  const callId = ++nextCall;
  return new Promise((resolve, reject) => {
    pending.set(callId, { resolve, reject });
    post({ type: 'call', callId, method, target, input, session_id });
  });
}

function normalise(out: string | SkillResult): SkillResult {
  if (typeof out === 'string') return { answer: out };
  if (!out || typeof out.answer !== 'string') throw new Error('the handler returned no answer (a string or {answer, meta})');
  return out.meta && typeof out.meta === 'object' ? { answer: out.answer, meta: out.meta } : { answer: out.answer };
}

async function handle(m: ToWorker): Promise<void> {
  if (m.type === 'reply') {
    const p = pending.get(m.callId);
    pending.delete(m.callId);
    if (m.ok) p?.resolve(m.value);
    else p?.reject(Object.assign(new Error(m.error.detail), { code: m.error.code }));
    return;
  }
  try {
    if (m.op === 'recognise' || m.op === 'serve') {
      const s = score(m.question);
      if (m.op === 'recognise' || s <= 0) {
        post({ type: 'done', id: m.id, ok: true, value: s });
        return;
      }
      // Claimed: the specialist AGREEs on this message while the run starts here at once.
      post({ type: 'recognised', id: m.id, score: s });
    }
    const session_id = m.session_id;
    const ctx: SkillContext = {
      session_id,
      skill: data.name,
      use: async (skill, input) => (await call('use', skill, input, session_id)) as SkillResult,
      a2a: (kind, input) => call('a2a', kind, input, session_id),
      ...(data.llm ? {
        llm: {
          chat: async (request) => (await call('llm', 'chat', request as unknown as Record<string, unknown>, session_id)) as ChatAnswer,
          tools: async () => (await call('llm', 'tools', {}, session_id)) as ToolSpec[],
        },
      } : {}),
    };
    const out = normalise(await (mod as HandlerModule).run(m.input, ctx));
    post({ type: 'done', id: m.id, ok: true, value: out });
  } catch (err) {
    post({ type: 'done', id: m.id, ok: false, error: wireError(err) });
  }
}

try {
  mod = (await import(data.handlerUrl)) as HandlerModule;
  if (typeof mod.run !== 'function') throw new Error('the handler exports no run(input, ctx) function');
  if (data.recognise.module && typeof mod.recognise !== 'function') throw new Error('skill.json says recognise.module but the handler exports no recognise(question)');
  if (typeof mod.init === 'function') await mod.init();
  process.on('message', (m: ToWorker) => void handle(m));
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'init-error', detail: wireError(err).detail });
}
