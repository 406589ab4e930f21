// Trace analysis on hand-made telemetry: the happy path of the seed contract holds every
// invariant; each doctored variant violates exactly the invariant it breaks.
import { expect } from 'chai';
import {
  analyze, parseScenario, correlationTable, mermaid, summary, table, type TraceRecord,
} from '../../shared/trace/index.js';

const CID = 'sess-11111111-2222-3333-4444-555555555555';
const HAPPY = ['REQUEST', 'QUERY-REF', 'INFORM', 'REQUEST', 'AGREE', 'INFORM', 'INFORM', 'INFORM', 'INFORM'];

type Msg = [from: string, to: string, perf: string, type: string, id: string, replyTo: string | null];
// Presenter → Coordinator → Registry → specialist-math → KB → Presenter, as the contract says.
const FLOW: Msg[] = [
  ['Presenter', 'Coordinator', 'REQUEST', 'USER_MSG', 'm1', null],
  ['Coordinator', 'Registry', 'QUERY-REF', 'need', 'm2', null],
  ['Registry', 'Coordinator', 'INFORM', 'candidates', 'm3', 'm2'],
  ['Coordinator', 'specialist-math', 'REQUEST', 'ASK_EXPERT', 'm4', null],
  ['specialist-math', 'Coordinator', 'AGREE', 'status', 'm5', 'm4'],
  ['specialist-math', 'Coordinator', 'INFORM', 'RESULT', 'm6', 'm4'],
  ['Coordinator', 'KB', 'INFORM', 'STORE_FACT', 'm7', null],
  ['KB', 'Coordinator', 'INFORM', 'STORED', 'm8', 'm7'],
  ['Coordinator', 'Presenter', 'INFORM', 'PRESENTER_REPLY', 'm9', 'm1'],
];

function records(flow: Msg[] = FLOW, cid = CID): TraceRecord[] {
  const seq = new Map<string, number>();
  const next = (agent: string) => {
    const n = (seq.get(agent) ?? 0) + 1;
    seq.set(agent, n);
    return n;
  };
  const rows: TraceRecord[] = [];
  flow.forEach(([from, to, perf, type, id, replyTo], i) => {
    const env = { performative: perf, sender: from, receiver: to, conversation_id: cid, reply_with: id, ...(replyTo ? { in_reply_to: replyTo } : {}), content: { type } };
    const base = { conversation_id: cid, performative: perf, sender: from, receiver: to, reply_with: id, in_reply_to: replyTo, content_type: type, body: JSON.stringify(env) };
    rows.push({ ...base, agent: from, direction: 'out', at: 1000 + i * 2, decision: 'sent', seq: next(from) });
    rows.push({ ...base, agent: to, direction: 'in', at: 1000 + i * 2 + 0.4, decision: replyTo ? 'routed' : 'opened', seq: next(to) });
  });
  rows.push({ agent: 'Coordinator', direction: 'note', at: 1005, conversation_id: cid, performative: null, sender: null, receiver: null, reply_with: null, in_reply_to: null, content_type: null, decision: 'dispatch', body: '{"candidate":"specialist-math","attempt":1}', seq: 99 });
  return rows;
}

const run = (rows: TraceRecord[], expect?: Parameters<typeof analyze>[1]['expect']) =>
  analyze(rows, { conversationId: CID, domain: 'localhost', expect, chat: { person: 'tracer', question: 'what is 17 * 23?', askedAt: 999, answer: '17 * 23 = 391', answeredAt: 1020 } });
const broken = (rows: TraceRecord[]) => [...new Set(run(rows).violations.map((v) => v.invariant))];

describe('trace [invariants]', () => {
  it('holds every invariant and the expected performatives on the happy path', () => {
    const a = run(records(), { performatives: HAPPY, answer_contains: '391', decisions_include: ['dispatch'] });
    expect(a.violations).to.deep.equal([]);
    expect(a.messages.map((m) => m.performative)).to.deep.equal(HAPPY);
  });

  it('single-conversation: flags a reply that carries another conversation_id', () => {
    const rows = records().map((r) => (r.reply_with === 'm6' ? { ...r, conversation_id: 'sess-other', body: r.body?.replace(CID, 'sess-other') ?? null } : r));
    expect(broken(rows)).to.deep.equal(['single-conversation']);
  });

  it('correlation: flags an in_reply_to that answers no earlier reply_with', () => {
    const rows = records().map((r) => (r.reply_with === 'm5' ? { ...r, in_reply_to: 'msg-bogus' } : r));
    const a = run(rows);
    expect(a.violations.map((v) => v.invariant)).to.deep.equal(['correlation']);
    expect(a.violations[0]?.detail).to.contain('msg-bogus');
  });

  it('correlation: flags a reply sent before the message it answers', () => {
    const late: Msg[] = [...FLOW.slice(0, 2), ['Registry', 'Coordinator', 'INFORM', 'candidates', 'm3', 'm4'], ...FLOW.slice(3)];
    expect(broken(records(late))).to.deep.equal(['correlation']);
  });

  it('allowed-edges: flags a specialist talking to the Presenter (no shortcuts, §5)', () => {
    const flow: Msg[] = [...FLOW, ['specialist-math', 'Presenter', 'INFORM', 'RESULT', 'm10', 'm4']];
    expect(broken(records(flow))).to.deep.equal(['allowed-edges']);
  });

  it('out-in-pairs: flags an envelope sent but never received, and one received but never sent', () => {
    const rows = records().filter((r) => !(r.reply_with === 'm9' && r.direction === 'in') && !(r.reply_with === 'm3' && r.direction === 'out'));
    const a = run(rows);
    expect(a.violations.map((v) => v.invariant)).to.deep.equal(['out-in-pairs', 'out-in-pairs']);
    expect(a.violations.map((v) => v.detail).join('\n')).to.match(/PRESENTER_REPLY m9 was sent but never received/).and.match(/m3 was received but its sender never/);
  });

  it('accepted: flags an envelope the receiver rejected', () => {
    const rows = records().map((r) => (r.reply_with === 'm4' && r.direction === 'in' ? { ...r, decision: 'rejected:FORBIDDEN_SENDER' } : r));
    expect(broken(rows)).to.deep.equal(['accepted']);
  });

  it('recorded: flags a conversation without telemetry', () => {
    expect(broken([])).to.deep.equal(['recorded']);
  });
});

describe('trace [expectations]', () => {
  it('performatives: an exact list that differs names the whole sequence', () => {
    const a = run(records(), { performatives: ['REQUEST', 'INFORM'] });
    expect(a.violations.map((v) => v.invariant)).to.deep.equal(['performatives']);
    expect(a.violations[0]?.detail).to.contain('got REQUEST USER_MSG, QUERY-REF need');
  });

  it('performatives_subsequence: matches in order with gaps, typed steps included', () => {
    expect(run(records(), { performatives_subsequence: ['REQUEST USER_MSG', 'AGREE', 'INFORM PRESENTER_REPLY'] }).violations).to.deep.equal([]);
    const bad = run(records(), { performatives_subsequence: ['INFORM PRESENTER_REPLY', 'REQUEST ASK_EXPERT'] });
    expect(bad.violations[0]?.detail).to.contain('REQUEST ASK_EXPERT (step 2) is missing');
  });

  it('answer: checks contains, contains-any and a pattern against the person\'s answer', () => {
    const a = run(records(), { answer_contains: ['391', 'nope'], answer_contains_any: ['x', 'y'], answer_matches: '^17' });
    expect(a.violations.map((v) => v.detail)).to.have.length(2);
    expect(a.violations.every((v) => v.invariant === 'answer')).to.equal(true);
  });

  it('scenario files: a question is required', () => {
    expect(() => parseScenario('{"expect":{}}', 'x.json')).to.throw(/x.json: "question"/);
    expect(parseScenario('{"question":"hi","before":["a"]}').before).to.deep.equal(['a']);
  });
});

describe('trace [render]', () => {
  it('prints one table row per envelope, decision and chat line, with offsets from the question', () => {
    const t = table(run(records()));
    const lines = t.split('\n');
    expect(lines).to.have.length(2 + 9 + 1 + 2);
    expect(lines[2]).to.match(/^\s*0\.0\s+tracer → Presenter\s+chat/);
    expect(t).to.match(/Coordinator → specialist-math\s+REQUEST\s+ASK_EXPERT\s+0\.4\s+opened/);
    expect(summary(run(records()))).to.contain('invariants: all hold');
  });

  it('draws a Mermaid sequence diagram: requests solid, replies dashed, lost messages crossed', () => {
    const rows = records().filter((r) => !(r.reply_with === 'm9' && r.direction === 'in'));
    const m = mermaid(run(rows));
    expect(m.split('\n')[0]).to.equal('sequenceDiagram');
    expect(m).to.contain('participant P0 as tracer');
    expect(m).to.match(/P1->>P2: REQUEST USER_MSG/);
    expect(m).to.match(/-->>P2: INFORM candidates/);
    expect(m).to.match(/P2-xP1: INFORM PRESENTER_REPLY/);
    expect(m).to.contain('Note over P2: dispatch candidate=specialist-math attempt=1');
    expect(m).to.not.match(/;[^5]/);
  });
});

describe('trace [correlation table]', () => {
  it('names, for every reply, the envelope its in_reply_to points at', () => {
    const t = correlationTable(run(records()));
    expect(t).to.match(/#9\s+INFORM PRESENTER_REPLY\s+Coordinator → Presenter\s+m9\s+m1 \(#1\)/);
    expect(t).to.match(/#1\s+REQUEST USER_MSG\s+Presenter → Coordinator\s+m1\s+—/);
  });
});
