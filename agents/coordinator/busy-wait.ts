// A busy system must be slower, not fail (issue #3): when every candidate that could take the
// question REFUSEd busy (direct flow) or answered the ACCEPT with BUSY (negotiated), and no
// scale-up helps (none allowed, already done, or refused), the Coordinator waits a named delay
// (BUSY_RETRY in machine.ts) and offers the question to the same candidates again. The waits
// grow exponentially with jitter (so questions refused together do not come back together) and
// stop once their sum would exceed the budget (the RESULT timeout by default, seed contract §3):
// then the person gets the §4 verdict (NO_CANDIDATE) as before. Pure: the jitter is a hash of
// the conversation and the attempt, so SimulatedClock tests are deterministic.
import type { Attempt } from './replies.js';
import { envNumber } from '../../shared/config/index.js';

export interface BusyRetrySettings {
  /** The first wait (before jitter). */
  baseMs: number;
  /** No single wait is longer than this. */
  maxMs: number;
  /** The waits of one question add up to at most this. */
  budgetMs: number;
}

/** PARLEY_BUSY_RETRY_MS (first wait; 0 = fail at once as before), PARLEY_BUSY_RETRY_MAX_MS; budget = RESULT timeout. */
export function busyRetryFrom(env: NodeJS.ProcessEnv, resultTimeoutMs: number): BusyRetrySettings | undefined {
  const baseMs = envNumber('PARLEY_BUSY_RETRY_MS', env);
  if (baseMs === 0) return undefined;
  return { baseMs, maxMs: Math.max(baseMs, envNumber('PARLEY_BUSY_RETRY_MAX_MS', env)), budgetMs: resultTimeoutMs };
}

const isBusy = (reason: string): boolean => reason.toLowerCase() === 'busy';

/** Candidates that refused busy in this round. */
export const busyOnes = (attempts: readonly Attempt[]): string[] =>
  [...new Set(attempts.filter((a) => a.outcome === 'refused' && isBusy(a.reason)).map((a) => a.candidate))];

/** Every candidate of the round was busy or could not take the question anyway (OUT_OF_SCOPE), and one was busy. */
export function onlyBusy(attempts: readonly Attempt[]): boolean {
  return busyOnes(attempts).length > 0 && attempts.every((a) => a.outcome === 'refused' && (isBusy(a.reason) || a.reason === 'OUT_OF_SCOPE'));
}

/** FNV-1a of the text, in [0, 1). */
function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 0x100000000;
}

/** The n-th wait (n from 0): base·2ⁿ capped at max, times a jitter in [0.5, 1). */
export function busyDelay(s: BusyRetrySettings, n: number, seed: string): number {
  const full = Math.min(s.maxMs, s.baseMs * 2 ** Math.min(n, 30));
  return Math.max(1, Math.round(full * (0.5 + unit(`${seed}:${n}`) / 2)));
}

/** The next wait, or undefined when it would take the question's waits past the budget. */
export function nextWait(s: BusyRetrySettings | undefined, n: number, waitedMs: number, seed: string): number | undefined {
  if (!s) return undefined;
  const ms = busyDelay(s, n, seed);
  return waitedMs + ms <= s.budgetMs ? ms : undefined;
}
