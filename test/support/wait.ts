// Polling and bounded waiting for integration tests (real time, real server).
import type { AnyActorRef } from 'xstate';

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The output of an actor that reaches a final state, or an error after timeoutMs. */
export async function outputOf<T>(actor: AnyActorRef, timeoutMs = 15000): Promise<T> {
  await until(() => actor.getSnapshot().status !== 'active', 'the exchange to finish', timeoutMs);
  const snap = actor.getSnapshot();
  if (snap.status !== 'done') throw new Error(`actor ended ${snap.status}: ${String(snap.error)}`);
  return snap.output as T;
}
