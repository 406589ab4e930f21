// The Coordinator's expert exchange in this process, as a long-running Coordinator runs it: its
// router (one xstate actor per USER_MSG, the duplicate and late-reply memories) and its durable
// exchange store (a group commit per inbound envelope, snapshots, inbound ledger, tombstones). No
// XMPP, no signatures: USER_MSG → ASK_EXPERT, RESULT → STORE_FACT and PRESENTER_REPLY, STORED →
// done, each inbound envelope in its own burst. The set-up first runs PREFILL conversations, so
// the bounded memories are full and evicting, as they are after a day's traffic (docs/bench.md
// "stop 33": a full memory once cost ≈ 0.2 ms per conversation; --total 2,000 never got there).
// CPU per round trip = this process's CPU per conversation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Envelope, makeEnvelope, newConversationId, replyTo } from '../acl/index.js';
import { silentLogger } from '../log/index.js';
import { identify, Router, useRoleBook } from '../runtime/index.js';
import { ExchangeStore, GroupCommit } from '../store/index.js';
import { CandidateCache } from '../../agents/coordinator/candidate-cache.js';
import { KbHealth } from '../../agents/coordinator/kb-health.js';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import type { Runner, Scenario } from './scenario.js';

/** Past the router's 50,000 closed ids (4 per conversation) and 100,000 seen envelopes (3). */
export const PREFILL = 40_000;
const DOMAIN = 'localhost';
const QUESTION = 'what is 2 + 3?';

export async function exchangeSteady(prefill = PREFILL): Promise<Runner> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-exchange-steady-'));
  const store = new ExchangeStore(path.join(dir, 'coordinator-exchanges.sqlite'));
  const group = new GroupCommit([store.group()]);
  const previousBook = useRoleBook({ roleOf: (jid) => (jid.startsWith('specialist-') ? 'specialist' : undefined) });
  let sent: Envelope[] = [];
  const router = new Router({
    logger: silentLogger(), send: (e) => sent.push(e), note: () => undefined, persist: store,
    crashed: (_key, _request, err) => {
      throw err instanceof Error ? err : new Error(String(err));
    },
  });
  // A DF answer that stays fresh: every question goes straight to the specialist.
  const cache = new CandidateCache(1e12, () => 0);
  cache.put(QUESTION, [`specialist-math@${DOMAIN}`, `specialist-math-2@${DOMAIN}`]);
  const timeouts = { agreeTimeoutMs: 3000, resultTimeoutMs: 30000, registryTimeoutMs: 3000, kbTimeoutMs: 2000 };
  router.on('USER_MSG', userMsgFactory({ self: 'Coordinator', domain: DOMAIN, timeouts, cache, kb: new KbHealth() }));
  const presenter = identify(`presenter@${DOMAIN}`, DOMAIN);
  const specialist = identify(`specialist-math@${DOMAIN}`, DOMAIN);
  const kb = identify(`kb@${DOMAIN}`, DOMAIN);

  const burst = (envelope: Envelope, kind: string, from: typeof presenter): Envelope[] => {
    sent = [];
    group.begin();
    try {
      router.deliver(envelope, kind, from);
    } finally {
      group.commit();
    }
    return sent;
  };
  const sentOf = (out: Envelope[], type: string): Envelope => {
    const env = out.find((e) => (e.content as { type?: unknown }).type === type);
    if (!env) throw new Error(`the exchange sent no ${type} (it sent ${out.map((e) => `${e.performative} ${String((e.content as { type?: unknown }).type)}`).join(', ') || 'nothing'})`);
    return env;
  };
  const conversation = (): void => {
    const request = makeEnvelope({
      performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: newConversationId(),
      content: { type: 'USER_MSG', text: QUESTION, attachments: [], user: `alice@${DOMAIN}` },
    });
    const ask = sentOf(burst(request, 'USER_MSG', presenter), 'ASK_EXPERT');
    const result = { ...replyTo(ask, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: '5', meta: { confidence: 1, skill: 'arithmetic' } } } }), sender: 'specialist-math' };
    const store1 = sentOf(burst(result, 'RESULT', specialist), 'STORE_FACT');
    burst({ ...replyTo(store1, { performative: 'INFORM', content: { type: 'STORED', count: 1 } }), sender: 'KB' }, 'STORED', kb);
  };

  for (let i = 0; i < prefill; i++) conversation();
  if (router.size !== 0) throw new Error(`${router.size} exchanges still open after the prefill`);
  return {
    roundTrip: async () => conversation(),
    async close() {
      router.stopAll();
      store.close();
      useRoleBook(previousBook);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const exchangeSteadyScenario: Scenario = {
  name: 'exchange-steady',
  description: `the Coordinator's expert exchange in-process (router + durable exchange store, no XMPP, unsigned), after ${PREFILL.toLocaleString('en')} conversations`,
  optIn: true,
  setup: () => exchangeSteady(),
};
