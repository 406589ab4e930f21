// The full flow, as a person lives it: "what is N * M?" in a chat to the Presenter → USER_MSG →
// Coordinator → Registry (candidates) → Specialist (AGREE, RESULT) → KB (STORE_FACT, STORED) →
// PRESENTER_REPLY → the chat answer, checked for the right product (a wrong or missing answer is
// a failure). Every agent is a real process (the supervisor's specs, run by its Supervisor class
// in this process) on the bench's private ejabberd; the people are plain chat clients (Person).
import { paths } from '../config/index.js';
import {
  agentsContext, CORE_ROLES, coreSpec, parseSpecialists, type SpecContext, specialistSpec, Supervisor,
} from '../supervisor/index.js';
import { Person } from '../trace/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import type { Runner, Scenario } from './scenario.js';
import { treeCpuUs } from './proc.js';
import { envNumber, envRaw, envString } from '../config/index.js';

/** People asking (several, so one chat session's serialisation does not dominate). */
const PEOPLE = envNumber('PARLEY_BENCH_PEOPLE', process.env, 10);
/** Both default specialists: the DF must rank the arithmetic one first for a product. */
const SPECIALISTS = envString('PARLEY_BENCH_SPECIALISTS') ?? 'math:arithmetic,time:time';

/** A product question with varying numbers, and the answer it must get. */
export function question(seq: number): { text: string; expect: RegExp } {
  const a = 2 + ((seq * 7919) % 997);
  const b = 2 + ((seq * 104729) % 89);
  return { text: `what is ${a} * ${b}?`, expect: new RegExp(`(^|\\D)${a * b}(\\D|$)`) };
}

/** What runs beside the agents (npm run bench -- --console): the console and a browser on its sniffer. */
export interface Watcher {
  start(instance: TempInstance, sup: Supervisor, ctx: SpecContext): Promise<void>;
  /** CPU (µs) of what the watcher runs outside the supervisor (the browser), counted with the agents'. */
  cpuUs?(): number;
  close(): Promise<void>;
}

async function setup(instance: TempInstance, watcher?: Watcher): Promise<Runner> {
  const cfg = instance.cfg;
  // The agents as `npm start` runs them: single-file bundles while they match dist/ (scripts/bundle.ts).
  const ctx = agentsContext();
  // `npm run bench -- --cpu-prof DIR` profiles the agents, not this process (Node refuses
  // --cpu-prof in NODE_OPTIONS, so the flags go on each agent's command line).
  const nodeArgs = (envString('PARLEY_BENCH_AGENT_NODE_ARGS') ?? '').split(' ').filter(Boolean);
  const sup = new Supervisor({
    // Fresh offers reused (PARLEY_WINNER_MEMORY=1) unless the caller chose: see docs/bench.md.
    env: {
      PARLEY_WINNER_MEMORY: '1',
      // The bench's "people" are load generators, each far faster than anyone types: the
      // Presenter's per-person limits (agents/presenter/fairness.ts) would set most lines aside.
      PARLEY_CHAT_RATE_PER_S: '1000000', PARLEY_CHAT_BURST: '1000000', PARLEY_CHAT_IN_FLIGHT: '100000', PARLEY_CHAT_QUEUE: '100000', PARLEY_CHAT_IN_FLIGHT_TOTAL: '100000',
      ...process.env, ...instance.env, PARLEY_LOG_LEVEL: envString('PARLEY_LOG_LEVEL') as string },
    logsDir: paths(cfg).logsDir,
    say: (line) => process.stderr.write(`\n  [supervisor] ${line}`),
  });
  const specs = [...CORE_ROLES.map((r) => coreSpec(ctx, r)), ...parseSpecialists(SPECIALISTS).map((d) => specialistSpec(ctx, d))]
    .map((s) => ({ ...s, args: [...nodeArgs, ...s.args] }));
  const people: Person[] = [];
  try {
    for (const s of specs) sup.add(s);
    await sup.whenReady(specs.map((s) => s.name), 60000);
    sup.markSystemReady(); // as npm start does at its ready line: the specialists' skill workers start now
    await watcher?.start(instance, sup, ctx);
    people.push(...(await Promise.all(Array.from({ length: PEOPLE }, (_, i) => Person.connect(cfg, `flow-person-${i}`)))));
  } catch (err) {
    await Promise.all(people.map((p) => p.close().catch(() => undefined)));
    await watcher?.close();
    await sup.stopAll();
    throw err;
  }
  let seq = 0;
  const lastCpu = new Map<string, number>();
  return {
    async roundTrip() {
      const n = seq++;
      const q = question(n);
      const a = await (people[n % people.length] as Person).ask(q.text, { timeoutMs: 14000 });
      if (!q.expect.test(a.answer)) throw new Error(`"${q.text}" got ${JSON.stringify(a.answer.slice(0, 160))}`);
    },
    childCpuUs: () => {
      // Each agent with its skill workers (sandboxed processes of their own, started and ended by
      // the pool as load comes and goes): the CPU a conversation costs the machine.
      const each = sup.list().map((c) => [c.name, c.pid ? treeCpuUs(c.pid) : 0] as const);
      const browser = watcher?.cpuUs?.() ?? 0;
      if (watcher) process.stderr.write(`\n  [cpu] ${[...each, ['browser', browser] as const].map(([n, us]) => `${n} ${(us / 1e6).toFixed(2)} s`).join(', ')}`);
      // Each agent's share of the phase since the previous call (the concurrent phase): where to look first.
      if (lastCpu.size > 0) {
        const delta = each.map(([n, us]) => [n, us - (lastCpu.get(n) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
        process.stderr.write(`\n  [cpu per agent] ${delta.map(([n, us]) => `${n} ${(us / 1e6).toFixed(2)} s`).join(', ')}\n`);
      }
      for (const [n, us] of each) lastCpu.set(n, us);
      return each.reduce((sum, [, us]) => sum + us, 0) + browser;
    },
    async close() {
      await Promise.all(people.map((p) => p.close().catch(() => undefined)));
      await watcher?.close();
      await sup.stopAll();
    },
  };
}

export const fullFlow: Scenario = {
  name: 'full-flow',
  description: `person chat → Presenter → Coordinator → Registry → Specialist → KB → reply (real agent processes, ${PEOPLE} people, specialists ${SPECIALISTS}, PARLEY_WINNER_MEMORY=${envRaw('PARLEY_WINNER_MEMORY') ?? '1'})`,
  // Issue 15's goal (issue 3 asked ≥ 300/s).
  goal: { p50Ms: 5, perSecond: 450, maxFailures: 0 },
  setup: (instance) => setup(instance),
};

/** The same flow with the console running and `watcher` watching it (shared/bench/console-watch.ts). */
export function fullFlowWatched(watcher: Watcher, what: string): Scenario {
  return { ...fullFlow, name: 'full-flow+console', description: `${fullFlow.description}; ${what}`, setup: (instance) => setup(instance, watcher) };
}
