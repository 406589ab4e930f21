// `npm run bench -- --only calendars-scale` (issue 14 §3, calendars): a Registry process and one
// calendar host (agents/calendar/host.ts --count N) serving PARLEY_BENCH_CALENDARS virtual
// calendars (default 1,000). Reports the time to start and register them all and RSS per calendar
// (host with N minus host with 1, over N − 1), then measures the round trip of one OACoP
// ProposeCollaboration (CFP → PROPOSE with free slots) from a Coordinator, each to the next
// calendar in turn: most find their store closed (the host keeps 128 open) and open it.
import { randomUUID } from 'node:crypto';
import { toPromise } from 'xstate';
import { propose } from '../../agents/coordinator/scheduling/oacop.js';
import { makeEnvelope } from '../acl/index.js';
import { envNumber } from '../config/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { calendarsDomain, generatedLocals } from '../runtime/index.js';
import { agentsContext, roleScript } from '../supervisor/index.js';
import { start, stop } from './agents-scale.js';
import { oneShotQuery } from './one-shot-query.js';
import { runtimeAgent } from './runtime-agent.js';
import type { Runner, Scenario } from './scenario.js';

export const calendarsScale: Scenario = {
  name: 'calendars-scale',
  description: 'OACoP ProposeCollaboration round trip to PARLEY_BENCH_CALENDARS (1,000) virtual calendars of one host, in turn; start/RSS per calendar on stderr',
  goal: { p50Ms: 5 },
  optIn: true,
  async setup(instance: TempInstance): Promise<Runner> {
    const n = envNumber('PARLEY_BENCH_CALENDARS', process.env, 1000);
    const env = { ...process.env, ...instance.env, PARLEY_LOG_LEVEL: 'info' };
    const registry = await start(roleScript(agentsContext(), 'registry'), [], env, 'online');
    const { baseRss, baseHeap, many } = await (async () => {
      const one = await start('agents/calendar/host.js', ['--host', 'base', '--count', '1'], env, 'calendars registered');
      await stop(one.child);
      return { baseRss: Number(one.line.rss_bytes), baseHeap: Number(one.line.heap_used_bytes), many: await start('agents/calendar/host.js', ['--host', 'bench', '--count', String(n)], env, 'calendars registered') };
    })().catch(async (err: unknown) => {
      // A failed setup has no close(): the Registry must not be left running.
      await stop(registry.child);
      throw err;
    });
    const l = many.line;
    const perKb = (Number(l.rss_bytes) - baseRss) / Math.max(1, n - 1) / 1024;
    const heapKb = (Number(l.heap_used_bytes) - baseHeap) / Math.max(1, n - 1) / 1024;
    process.stderr.write(`\n  ${n} virtual calendars started and registered in ${String(l.total_ms)} ms (${(Number(l.total_ms) / n).toFixed(2)} ms/calendar; `
      + `keys+enrolment+agents ${String(l.hosted_ms)} ms, connect ${String(l.connect_ms)} ms, registration ${String(l.register_ms)} ms); `
      + `RSS ${(Number(l.rss_bytes) / 2 ** 20).toFixed(1)} MiB, ${perKb.toFixed(1)} kB/calendar over a 1-calendar host (${(baseRss / 2 ** 20).toFixed(1)} MiB); `
      + `V8 heap used ${heapKb.toFixed(1)} kB/calendar over it\n  `);
    const coord = await runtimeAgent(instance.cfg, 'coordinator', { telemetry: 'memory' });
    await coord.agent.start();
    const people = generatedLocals('bench', n);
    let next = 0;
    return {
      async roundTrip() {
        const to = `${people[next++ % n] as string}@${calendarsDomain(instance.cfg.domain)}`;
        const cid = `sess-${randomUUID()}`;
        const meeting = { threadId: `urn:uuid:${randomUUID()}`, title: 'Bench', durationMin: 30, window: { start: '2026-12-14T09:00:00Z', end: '2026-12-18T17:00:00Z' }, requester: `alice@${instance.cfg.domain}` };
        const request = makeEnvelope({ performative: 'CFP', sender: 'Coordinator', receiver: to, conversation_id: cid, ontology: 'OACoP', content: propose(meeting, 1, { participants: [to], required: [to] }) });
        const reply = await toPromise(coord.agent.router.start(`${cid}/p`, oneShotQuery, { envelope: request }));
        if (reply.performative !== 'PROPOSE') throw new Error(`${to} answered ${reply.performative}: ${JSON.stringify(reply.content).slice(0, 300)}`);
      },
      async close() {
        await coord.agent.stop();
        await stop(many.child);
        await stop(registry.child);
      },
    };
  },
};
