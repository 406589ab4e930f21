// Messages between a skill's worker thread (worker.ts) and its pool (pool.ts).
export interface WireError {
  code: 'INVALID_ARGS' | 'TIMEOUT' | 'INTERNAL_ERROR';
  detail: string;
}

export type ToWorker =
  | { type: 'op'; op: 'recognise'; id: number; question: string }
  | { type: 'op'; op: 'run'; id: number; input: Record<string, unknown>; session_id: string }
  | { type: 'reply'; callId: number; ok: true; value: unknown }
  | { type: 'reply'; callId: number; ok: false; error: WireError };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-error'; detail: string }
  | { type: 'done'; id: number; ok: true; value: unknown }
  | { type: 'done'; id: number; ok: false; error: WireError }
  | { type: 'call'; callId: number; method: 'use' | 'a2a' | 'llm'; target: string; input: Record<string, unknown>; session_id: string };
