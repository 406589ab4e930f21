// The Coordinator's side of skills (issue "Skills, roles and spawning"): scaling up when every
// candidate is busy, a specialist's DELEGATE_TASK as a sub-request in the same session, and
// QUERY_AGENTS / BROADCAST_EVENT answered from the live directory.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import { type Envelope, makeEnvelope, newConversationId } from '../../shared/acl/index.js';
import { identify } from '../../shared/runtime/index.js';
import { broadcastMachine, queryAgentsMachine } from '../../agents/coordinator/agents-ops.js';
import { expertMachine, type ScaleInput, type ScaleOutput } from '../../agents/coordinator/expert/machine.js';
import { harness, userMsg } from './coordinator-harness.js';

const A = 'specialist-a@localhost';
const B = 'specialist-b@localhost';
const flush = () => new Promise((r) => setImmediate(r));

function scaling(outcome: 'ok' | 'refused') {
  const calls: ScaleInput[] = [];
  const machine = expertMachine.provide({
    actors: {
      scale: fromPromise<ScaleOutput, ScaleInput>(async ({ input }) => {
        calls.push(input);
        if (outcome === 'refused') throw new Error('AT_LIMIT: math (3/3)');
        return { agent: { name: 'specialist-math-x1' }, ready_ms: 900 };
      }),
    },
  });
  const request = userMsg('what is 2 + 2?');
  const h = harness(machine, request, { canScale: true });
  h.reply(h.last(), 'INFORM', { candidates: [A, 'specialist-c@localhost', B] });
  h.reply(h.last(), 'REFUSE', { reason: 'busy' });
  h.reply(h.last(), 'REFUSE', { reason: 'OUT_OF_SCOPE', detail: 'not mine' }); // cannot take it anyway
  h.reply(h.last(), 'REFUSE', { reason: 'busy' });
  return { ...h, request, calls };
}

describe('Coordinator [scale] every candidate busy → one more specialist, then retry', () => {
  it('asks the supervisor with the busy names, looks up again and dispatches to the new one', async () => {
    const h = scaling('ok');
    await flush();
    expect(h.calls).to.deep.equal([{ busy: ['specialist-a', 'specialist-b'] }]);
    expect(h.notes.map((n) => n.decision)).to.include.members(['scale-up', 'scaled-up']);
    const lookup = h.last();
    expect(lookup).to.include({ performative: 'QUERY-REF', receiver: 'Registry' });
    h.reply(lookup, 'INFORM', { candidates: [A, B, 'specialist-math-x1@localhost'] });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    const ask = h.last();
    expect(ask).to.include({ receiver: 'specialist-math-x1' });
    h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: '4' } });
    h.reply(h.last(), 'INFORM', { type: 'STORED', count: 1 });
    expect(h.last().content).to.deep.include({ type: 'PRESENTER_REPLY', text: '4' });
  });

  it('does not scale when a candidate failed or timed out (not a capacity problem)', () => {
    const machine = expertMachine.provide({ actors: { scale: fromPromise<ScaleOutput, ScaleInput>(async () => ({})) } });
    const h = harness(machine, userMsg('what is 2 + 2?'), { canScale: true });
    h.reply(h.last(), 'INFORM', { candidates: [A, B] });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    h.reply(h.last(), 'FAILURE', { reason: 'INTERNAL_ERROR', detail: 'boom' });
    expect(h.notes.map((n) => n.decision)).to.not.include('scale-up');
    expect(h.last().content).to.include({ reason: 'INTERNAL_ERROR' });
  });

  it('scales once per question: busy again after scaling ends in NO_CANDIDATE', async () => {
    const h = scaling('ok');
    await flush();
    h.reply(h.last(), 'INFORM', { candidates: [A] });
    h.reply(h.last(), 'REFUSE', { reason: 'busy' });
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'Presenter' });
    expect(h.last().content).to.include({ reason: 'NO_CANDIDATE' });
  });

  it('a refused scale-up (at maxConcurrent) answers NO_CANDIDATE and notes why', async () => {
    const h = scaling('refused');
    await flush();
    expect(h.notes).to.deep.include({ decision: 'scale-up-refused', detail: { why: 'AT_LIMIT: math (3/3)' } });
    expect(h.last().content).to.include({ reason: 'NO_CANDIDATE' });
  });
});

function delegation(task: string, role?: string) {
  const cid = newConversationId();
  const request = makeEnvelope({
    performative: 'REQUEST', sender: 'specialist-planner', receiver: 'Coordinator', conversation_id: cid,
    content: { type: 'DELEGATE_TASK', task, ...(role ? { role } : {}) },
  });
  const h = harness(expertMachine, request, { from: identify('specialist-planner@localhost', 'localhost'), delegation: { exclude: 'specialist-planner', ...(role ? { role } : {}) } });
  return { ...h, request };
}

describe('Coordinator [delegation] DELEGATE_TASK is a sub-request in the same session', () => {
  it('asks the DF (with the role), never the delegating specialist, and answers RESULT without storing', () => {
    const h = delegation('what is 17 * 23', 'math');
    const lookup = h.last();
    expect(lookup.content).to.deep.equal({ need: 'ASK_EXPERT', hint: 'what is 17 * 23', role: 'math' });
    h.reply(lookup, 'INFORM', { candidates: ['specialist-planner@localhost', A] });
    const ask = h.last();
    expect(ask).to.include({ receiver: 'specialist-a', conversation_id: h.request.conversation_id });
    expect(ask.content).to.deep.include({ args: { question: 'what is 17 * 23' }, context_ref: { session_id: h.request.conversation_id } });
    h.reply(ask, 'INFORM', { type: 'RESULT', result: { answer: '391' } });
    const reply = h.last();
    expect(reply).to.include({ performative: 'INFORM', receiver: 'specialist-planner', in_reply_to: h.request.reply_with });
    expect(reply.content).to.deep.equal({ type: 'RESULT', result: { answer: '391', meta: { answered_by: 'specialist-a' } } });
    expect(h.sent.some((e) => e.receiver === 'KB')).to.equal(false);
    expect(h.isDone()).to.equal(true);
  });

  it('answers FAILURE NO_CANDIDATE when only the delegating specialist could do it', () => {
    const h = delegation('what is 2 + 2');
    h.reply(h.last(), 'INFORM', { candidates: ['specialist-planner@localhost'] });
    expect(h.last()).to.include({ performative: 'FAILURE', receiver: 'specialist-planner' });
    expect(h.last().content).to.include({ reason: 'NO_CANDIDATE' });
  });
});

function directoryReply(h: ReturnType<typeof harness>, describe: Envelope) {
  const profile = (name: string, role: string, skills: string[]) => ({
    jid: `${name}@localhost`, name, version: '0.1.0', capabilities: ['ASK_EXPERT'], role, skills, description: `${role} agent`,
  });
  h.reply(describe, 'INFORM', {
    type: 'DIRECTORY',
    agents: [
      { profile: profile('specialist-math', 'math', ['arithmetic']), registered_at: '2026-01-01T00:00:00Z', last_seen: '2026-01-01T00:00:00Z' },
      { profile: profile('specialist-planner', 'planner', ['plan', 'delegate_task']), registered_at: '2026-01-01T00:00:00Z', last_seen: '2026-01-01T00:00:00Z' },
    ],
  });
}

describe('Coordinator [agents] QUERY_AGENTS and BROADCAST_EVENT from the live directory', () => {
  const from = identify('specialist-planner@localhost', 'localhost');
  const req = (performative: 'QUERY-REF' | 'REQUEST', content: object) => makeEnvelope({
    performative, sender: 'specialist-planner', receiver: 'Coordinator', conversation_id: newConversationId(), content,
  });

  it('QUERY_AGENTS filters the DESCRIBE answer by role or skill', () => {
    const request = req('QUERY-REF', { type: 'QUERY_AGENTS', skill: 'arithmetic' });
    const h = harness(queryAgentsMachine, request, { from });
    expect(h.last().content).to.deep.equal({ type: 'DESCRIBE', capability: 'ASK_EXPERT' });
    directoryReply(h, h.last());
    expect(h.last().content).to.deep.equal({ type: 'AGENTS', agents: [{ name: 'specialist-math', role: 'math', skills: ['arithmetic'], description: 'math agent' }] });
  });

  it('BROADCAST_EVENT sends INFORM EVENT to every other specialist and reports who got it', () => {
    const request = req('REQUEST', { type: 'BROADCAST_EVENT', event: 'plan.done', data: 'two parts' });
    const h = harness(broadcastMachine, request, { from });
    directoryReply(h, h.last());
    const [event, done] = h.sent.slice(-2) as [Envelope, Envelope];
    expect(event).to.include({ performative: 'INFORM', receiver: 'specialist-math', conversation_id: request.conversation_id });
    expect(event.content).to.deep.equal({ type: 'EVENT', event: 'plan.done', data: 'two parts', origin: 'specialist-planner' });
    expect(done.content).to.deep.equal({ type: 'BROADCAST_DONE', delivered: ['specialist-math'] });
  });
});
