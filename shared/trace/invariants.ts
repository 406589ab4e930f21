// The seed contract's invariants, checked on one conversation's merged telemetry:
// §1 one conversation_id = <thread> on the whole path, in_reply_to = an earlier reply_with;
// §5 no shortcuts (only allowed role edges); every envelope sent is received, and accepted.
import { identify, jidOfName, mayTalk } from '../runtime/index.js';
import { isEnvelopeRow, recordingAgents } from './messages.js';
import type { TraceMessage, TraceRecord, Violation } from './types.js';

/** Cross-process clocks (performance.timeOrigin per process) may disagree by a little. */
const CLOCK_SLACK_MS = 5;

export function singleConversation(records: TraceRecord[], conversationId: string): Violation[] {
  const out: Violation[] = [];
  for (const r of records) {
    if (!isEnvelopeRow(r)) continue;
    let bodyCid: unknown = r.conversation_id;
    try {
      bodyCid = r.body ? (JSON.parse(r.body) as { conversation_id?: unknown }).conversation_id : bodyCid;
    } catch {
      // A raw body that did not parse: the header columns are all we have.
    }
    if (r.conversation_id !== conversationId || bodyCid !== conversationId) {
      out.push({
        invariant: 'single-conversation',
        detail: `${r.agent} ${r.direction} ${r.performative} ${r.reply_with} has conversation_id ${JSON.stringify(bodyCid ?? r.conversation_id)}, expected ${conversationId}`,
      });
    }
  }
  return out;
}

export function correlation(messages: TraceMessage[], records: TraceRecord[]): Violation[] {
  const agents = recordingAgents(records);
  const out: Violation[] = [];
  for (const m of messages) {
    if (m.in_reply_to === null) continue;
    const target = m.in_reply_to;
    // The answered message went out no later than the answer (cross-process clocks, with slack);
    // when the answering agent records telemetry, it must also have seen that message itself.
    // (Not by seq: the runtime records an `in` row after the actor's synchronous replies.)
    const earlier = messages.some((o) => o !== m && o.reply_with === target && o.at <= m.at + CLOCK_SLACK_MS);
    const seen = !agents.has(m.sender) || records.some((r) => r.agent === m.sender && r.reply_with === target);
    const ok = earlier && seen;
    if (!ok) {
      out.push({
        invariant: 'correlation',
        detail: `${m.sender} → ${m.receiver} ${m.performative} ${m.reply_with} has in_reply_to ${target}, which is no earlier reply_with`,
      });
    }
  }
  return out;
}

export function allowedEdges(messages: TraceMessage[], domain: string): Violation[] {
  const role = (name: string) => identify(jidOfName(name, domain), domain).role;
  return messages
    .filter((m) => !mayTalk(role(m.sender), role(m.receiver)))
    .map((m) => ({
      invariant: 'allowed-edges',
      detail: `${m.sender} (${role(m.sender)}) → ${m.receiver} (${role(m.receiver)}) ${m.performative} is a forbidden edge (seed contract §5)`,
    }));
}

export function outInPairs(messages: TraceMessage[]): Violation[] {
  const out: Violation[] = [];
  for (const m of messages) {
    const what = `${m.sender} → ${m.receiver} ${m.performative} ${m.content_type ?? ''} ${m.reply_with}`;
    if (!m.out) out.push({ invariant: 'out-in-pairs', detail: `${what} was received but its sender never recorded sending it` });
    if (!m.in) out.push({ invariant: 'out-in-pairs', detail: `${what} was sent but never received` });
  }
  return out;
}

const REJECTED = /^(rejected:|broken$|unhandled$|failure:)/;

export function accepted(records: TraceRecord[]): Violation[] {
  return records
    .filter((r) => r.direction === 'in' && REJECTED.test(r.decision))
    .map((r) => ({
      invariant: 'accepted',
      detail: `${r.agent} rejected ${r.performative ?? 'a message'} ${r.reply_with ?? ''} from ${r.sender ?? '?'}: ${r.decision}`,
    }));
}
