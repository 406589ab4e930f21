// Drives one Coordinator exchange machine without a server: SimulatedClock for the named delays,
// emitted sends collected in order, replies fed as router `inbound` events built with replyTo.
import { expect } from 'chai';
import { type AnyStateMachine, createActor, SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope, newConversationId, replyTo, type Performative } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import { type ExchangeEmitted, identify } from '../../shared/runtime/index.js';
import type { CoordinatorTimeouts } from '../../agents/coordinator/envelopes.js';

export const DOMAIN = 'localhost';
export const USER = 'alice@localhost';
/** The seed contract's defaults (AGREE 3 s, RESULT 30 s) and loadTunables()' DF/KB waits. */
export const T: CoordinatorTimeouts = { agreeTimeoutMs: 3000, resultTimeoutMs: 30000, registryTimeoutMs: 3000, kbTimeoutMs: 2000 };

export function userMsg(text: string, user: string | undefined = USER): Envelope {
  return makeEnvelope({
    performative: 'REQUEST', sender: 'Presenter', receiver: 'Coordinator', conversation_id: newConversationId(),
    content: { type: 'USER_MSG', text, attachments: [], ...(user ? { user } : {}) },
  });
}

export function harness(machine: AnyStateMachine, request: Envelope, extra: object = {}) {
  const clock = new SimulatedClock();
  const sent: Envelope[] = [];
  const notes: Array<{ decision: string; detail?: object }> = [];
  const actor = createActor(machine, {
    input: { request, from: identify('presenter@localhost', DOMAIN), self: 'Coordinator', domain: DOMAIN, timeouts: T, ...extra },
    clock,
  });
  actor.on('send', (e: ExchangeEmitted) => {
    if (e.type !== 'send') return;
    // Everything the Coordinator sends must satisfy contracts/ (the receivers' pipeline checks it).
    const v = validateEnvelope(e.envelope);
    expect(v.ok, `invalid outbound ${JSON.stringify(e.envelope.content)}: ${JSON.stringify(v)}`).to.equal(true);
    sent.push(e.envelope);
  });
  actor.on('note', (e: ExchangeEmitted) => {
    if (e.type === 'note') notes.push({ decision: e.decision, detail: e.detail });
  });
  actor.start();
  const last = (): Envelope => {
    const env = sent[sent.length - 1];
    if (!env) throw new Error('nothing sent yet');
    return env;
  };
  return {
    actor, clock, sent, notes, last,
    /** The answer `to` would send (sender = its receiver). */
    reply(to: Envelope, performative: Performative, content: object): Envelope {
      const envelope = replyTo(to, { performative, content });
      actor.send({ type: 'inbound', envelope });
      return envelope;
    },
    inbound(envelope: Envelope): void {
      actor.send({ type: 'inbound', envelope });
    },
    /** The actor reached a final state (the router would now close its correlations). */
    isDone(): boolean {
      return actor.getSnapshot().status === 'done';
    },
  };
}
