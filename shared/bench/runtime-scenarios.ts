// Runtime scenarios: two in-process runtime Agents (Coordinator and specialist-echo) with the
// full pipeline on both sides — envelope and content validation, identity and policy checks,
// router, one xstate actor per exchange, SQLite telemetry — over the same ejabberd.
import { type AnyActorRef, fromPromise, toPromise } from 'xstate';
import { newConversationId } from '../acl/index.js';
import { echoRequester, echoResponder, type RequesterOutput } from './echo-machines.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { runtimeAgent } from './runtime-agent.js';
import type { Runner, Scenario } from './scenario.js';

const answer = fromPromise<string, { question: string }>(async ({ input }) => input.question);

async function setupRuntime(instance: TempInstance, agree: boolean): Promise<Runner> {
  const spec = await runtimeAgent(instance.cfg, 'specialist-echo', { resource: 'bench', enrolAs: 'specialist' });
  const coord = await runtimeAgent(instance.cfg, 'coordinator', { resource: 'bench' });
  const machine = echoResponder.provide({ actors: { answer } });
  spec.agent.router.on('ASK_EXPERT', (request, from) => ({ machine, input: { request, from, self: spec.agent.name, agree } }));
  await spec.agent.start();
  await coord.agent.start();
  let seq = 0;
  return {
    async roundTrip() {
      const cid = newConversationId();
      const actor: AnyActorRef = coord.agent.router.start(`${cid}/bench-${++seq}`, echoRequester, {
        self: 'Coordinator', peer: 'specialist-echo', conversationId: cid, question: 'ping', agreeTimeoutMs: 10000, resultTimeoutMs: 10000,
      });
      const out = (await toPromise(actor)) as RequesterOutput;
      if (!out.ok) throw new Error(`bench round trip failed: ${out.reason}`);
    },
    async close() {
      await coord.agent.stop();
      await spec.agent.stop();
    },
  };
}

export const runtimeRequestReply: Scenario = {
  name: 'runtime-request-reply',
  description: 'runtime Agents: REQUEST ASK_EXPERT → INFORM RESULT',
  baseline: 'raw-echo',
  setup: (instance) => setupRuntime(instance, false),
};

export const runtimeAskExpert: Scenario = {
  name: 'runtime-ask-expert',
  description: 'runtime Agents: REQUEST → AGREE → INFORM RESULT (2 replies)',
  setup: (instance) => setupRuntime(instance, true),
};
