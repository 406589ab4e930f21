// Questions answered per second spread over a host's virtual agents (issue 14 §3, agents-scale):
// the Coordinator's REQUEST ASK_EXPERT goes to each virtual specialist in turn (question i to
// agent i mod N), answered INFORM RESULT by that agent's skill, checked for the right product.
// Measured like any scenario (scenario.ts measure: sequential latency, then 100 in flight).
import { type AnyActorRef, toPromise } from 'xstate';
import { newConversationId } from '../acl/index.js';
import type { Agent } from '../runtime/index.js';
import { echoRequester, type RequesterOutput } from './echo-machines.js';
import { measure, type BenchOptions, type ScenarioResult } from './scenario.js';

export interface VirtualQuestionsOptions {
  /** The asking agent (the bench's in-process Coordinator). */
  coordinator: Agent;
  /** The virtual agents' names (their bare JIDs), asked in turn. */
  agents: readonly string[];
  bench: BenchOptions;
}

export async function measureVirtualQuestions(o: VirtualQuestionsOptions): Promise<ScenarioResult & { asked: number }> {
  let next = 0;
  const asked = new Set<string>();
  const runner = {
    async roundTrip() {
      const peer = o.agents[next++ % o.agents.length] as string;
      asked.add(peer);
      const cid = newConversationId();
      const actor: AnyActorRef = o.coordinator.router.start(`${cid}/vq`, echoRequester, {
        self: 'Coordinator', peer, conversationId: cid, question: 'what is 6 * 7?', agreeTimeoutMs: 10000, resultTimeoutMs: 10000,
      });
      const out = (await toPromise(actor)) as RequesterOutput;
      if (!out.ok) throw new Error(`${peer}: ${out.reason}`);
      if (!String(out.answer).includes('42')) throw new Error(`${peer} answered ${JSON.stringify(out.answer)}`);
    },
    async close() {},
  };
  const scenario = { name: 'virtual-questions', description: 'REQUEST ASK_EXPERT to each virtual agent in turn', setup: async () => runner };
  const result = await measure(scenario, runner, o.bench);
  return { ...result, asked: asked.size };
}
