// Runtime scenarios: two in-process runtime Agents (Coordinator and specialist-echo) with the
// full pipeline on both sides — envelope and content validation, identity and policy checks,
// router, one xstate actor per exchange, SQLite telemetry — over the same ejabberd.
import { type AnyActorRef, fromPromise, toPromise } from 'xstate';
import { newConversationId } from '../acl/index.js';
import { echoRequester, echoResponder, type RequesterOutput } from './echo-machines.js';
import type { TempInstance } from '../ejabberd/operator.js';
import { runtimeAgent, type RuntimeAgent } from './runtime-agent.js';
import type { ParleyConfig } from '../config/index.js';
import type { Runner, Scenario } from './scenario.js';

const answer = fromPromise<string, { question: string }>(async ({ input }) => input.question);

/** Two started runtime Agents, a Coordinator and an echo specialist, and one ASK_EXPERT round trip between them. */
export interface EchoPair {
  coord: RuntimeAgent;
  spec: RuntimeAgent;
  /** REQUEST ASK_EXPERT `question` → (AGREE) → INFORM RESULT echoing it; the requester machine's output. */
  ask(question: string, timeoutMs?: number): Promise<RequesterOutput>;
  close(): Promise<void>;
}

/** The pair the runtime scenarios time; integration tests use it over their own ejabberd. */
export async function echoPair(cfg: ParleyConfig, resource: string, agree = false): Promise<EchoPair> {
  const spec = await runtimeAgent(cfg, 'specialist-echo', { resource, enrolAs: 'specialist' });
  const coord = await runtimeAgent(cfg, 'coordinator', { resource });
  const machine = echoResponder.provide({ actors: { answer } });
  spec.agent.router.on('ASK_EXPERT', (request, from) => ({ machine, input: { request, from, self: spec.agent.name, agree } }));
  await spec.agent.start();
  await coord.agent.start();
  let seq = 0;
  return {
    coord,
    spec,
    async ask(question, timeoutMs = 10000) {
      const cid = newConversationId();
      const actor: AnyActorRef = coord.agent.router.start(`${cid}/${resource}-${++seq}`, echoRequester, {
        self: 'Coordinator', peer: 'specialist-echo', conversationId: cid, question, agreeTimeoutMs: timeoutMs, resultTimeoutMs: timeoutMs,
      });
      return (await toPromise(actor)) as RequesterOutput;
    },
    async close() {
      await coord.agent.stop();
      await spec.agent.stop();
    },
  };
}

async function setupRuntime(instance: TempInstance, agree: boolean): Promise<Runner> {
  const pair = await echoPair(instance.cfg, 'bench', agree);
  return {
    async roundTrip() {
      const out = await pair.ask('ping');
      if (!out.ok) throw new Error(`bench round trip failed: ${out.reason}`);
    },
    close: () => pair.close(),
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
