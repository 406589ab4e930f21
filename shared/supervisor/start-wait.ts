// How `npm start` waits for the agents it started (scripts/supervisor-main.ts).
import type { AgentSpec } from './spec.js';
import { FailedToStart, type Supervisor } from './supervisor.js';

export interface StartWait {
  timeoutMs: number;
  say: (line: string) => void;
  /** True once a signal asked the start to stop: the wait ends at once. */
  stopping: () => boolean;
  logsDir: string;
}

/**
 * Waits until every agent of `specs` is ready. One that gave up (FailedToStart: it kept dying at
 * start, e.g. a specialist with a skill that does not exist) is started without, with a line
 * saying why, unless it is a core agent: the system is of no use without it, so the start fails
 * (the rejection). A timeout says who is missing and waits on. Resolves with the agents left out,
 * or undefined when stopping.
 *
 * Before, a FailedToStart was caught like a timeout and the wait began again, which rejected at
 * once: a loop of promise jobs that never let the event loop turn. Measured with a specialist of
 * an unknown skill: the supervisor at 70-100 % of a core, 459,226 lines of "… still waiting" in
 * 40 s, and SIGTERM and Ctrl-C never handled (it had to be killed).
 */
export async function waitForStart(sup: Supervisor, specs: readonly AgentSpec[], o: StartWait): Promise<string[] | undefined> {
  const waiting = new Set(specs.map((s) => s.name));
  const without: string[] = [];
  while (!o.stopping()) {
    try {
      await sup.whenReady([...waiting], o.timeoutMs);
      return without;
    } catch (err) {
      if (o.stopping()) return undefined;
      if (!(err instanceof FailedToStart)) {
        o.say(`${(err as Error).message}; still waiting (see ${o.logsDir})`);
        continue;
      }
      if (specs.find((s) => s.name === err.agent)?.kind === 'core' || !waiting.has(err.agent)) throw err;
      waiting.delete(err.agent);
      without.push(err.agent);
      o.say(`${err.message}; going on without it`);
    }
  }
  return undefined;
}
