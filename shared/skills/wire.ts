// Messages between a skill's worker process (worker.ts) and its pool (pool.ts). `serve` is a
// recognition that, when the skill claims the question (score > 0), goes straight on into the
// run in the same worker: `recognised` (the specialist sends AGREE), then `done` (INFORM); a
// score of 0 is answered by `done` alone (docs/bench.md "Recognise and run at once").
export interface WireError {
  code: 'INVALID_ARGS' | 'TIMEOUT' | 'INTERNAL_ERROR';
  detail: string;
}

export type ToWorker =
  | { type: 'op'; op: 'recognise'; id: number; question: string }
  | { type: 'op'; op: 'run'; id: number; input: Record<string, unknown>; session_id: string }
  | { type: 'op'; op: 'serve'; id: number; question: string; input: Record<string, unknown>; session_id: string }
  | { type: 'reply'; callId: number; ok: true; value: unknown }
  | { type: 'reply'; callId: number; ok: false; error: WireError };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-error'; detail: string }
  | { type: 'recognised'; id: number; score: number }
  | { type: 'done'; id: number; ok: true; value: unknown }
  | { type: 'done'; id: number; ok: false; error: WireError }
  | { type: 'call'; callId: number; method: 'use' | 'a2a' | 'llm'; target: string; input: Record<string, unknown>; session_id: string };
