// One table of bad inputs (docs/architecture.md "one pipeline"), shared by the classify tests
// and the Agent.receive tests: each row says who sends what to whom, and which FIPA error with
// which reason code and correlation must come back (seed contract §1, §5; shared/acl/errors.ts).
import { type Envelope, makeEnvelope, type ErrorCode, type ErrorPerformative } from '../../shared/acl/index.js';
import { DOMAIN, inbound } from './fake-transport.js';
import type { InboundMessage } from '../../shared/transport/index.js';
import { createIdentity, signEnvelope } from '../../shared/identity/index.js';
import { signAs, testIdentity } from './signing.js';

export const JID = {
  coordinator: `coordinator@${DOMAIN}`,
  presenter: `presenter@${DOMAIN}`,
  kb: `kb@${DOMAIN}`,
  echo: `specialist-echo@${DOMAIN}`,
  other: `specialist-other@${DOMAIN}`,
  alice: `alice@${DOMAIN}`,
};

export const CID = 'sess-pipeline-1';

export function askExpert(over: Partial<Envelope> & { question?: string } = {}): Envelope {
  const { question, ...rest } = over;
  return {
    ...makeEnvelope({
      performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-echo', conversation_id: CID,
      content: { type: 'ASK_EXPERT', args: { question: question ?? '2+2?' }, context_ref: { session_id: CID } },
    }),
    ...rest,
  };
}

export interface BadInput {
  name: string;
  /** Account localpart of the receiving agent. */
  self: string;
  msg: InboundMessage;
  code: ErrorCode;
  performative: ErrorPerformative;
  /** Expected in_reply_to of the error: the offending reply_with, or the stanza id when the body did not parse. */
  inReplyTo: string;
  thread: string;
}

const STANZA_ID = 'stanza-id-1';

function row(name: string, self: string, msg: InboundMessage, code: ErrorCode, performative: ErrorPerformative, inReplyTo: string, thread = CID): BadInput {
  return { name, self, msg, code, performative, inReplyTo, thread };
}

export function badInputs(): BadInput[] {
  const big = askExpert();
  (big.content as { args: Record<string, unknown> }).args.padding = 'x'.repeat(65 * 1024);
  const noArgs = askExpert();
  delete (noArgs.content as Record<string, unknown>).args;
  const noTimestamp: Record<string, unknown> = { ...askExpert() };
  delete noTimestamp.timestamp;
  const forged = askExpert();
  const wrongThread = askExpert();
  const agreeToKb: Envelope = makeEnvelope({
    performative: 'AGREE', sender: 'specialist-echo', receiver: 'KB', conversation_id: CID, in_reply_to: 'msg-x', content: { status: 'accepted' },
  });
  const userMsg = (sender: string): Envelope => makeEnvelope({
    performative: 'REQUEST', sender, receiver: 'Coordinator', conversation_id: CID, content: { type: 'USER_MSG', text: 'hi' },
  });
  const rows: BadInput[] = [
    row('a body that is not JSON', 'specialist-echo', inbound(JID.coordinator, 'hello, not json', { thread: CID, id: STANZA_ID }), 'INVALID_JSON', 'NOT-UNDERSTOOD', STANZA_ID),
    row('a body over 96 kB', 'specialist-echo', inbound(JID.coordinator, `{"pad":"${'y'.repeat(97 * 1024)}"}`, { thread: CID, id: STANZA_ID }), 'CONTENT_TOO_LARGE', 'NOT-UNDERSTOOD', STANZA_ID),
    row('content over 64 kB', 'specialist-echo', inbound(JID.coordinator, big, { id: STANZA_ID }), 'CONTENT_TOO_LARGE', 'NOT-UNDERSTOOD', big.reply_with),
    row('an envelope missing a header field', 'specialist-echo', inbound(JID.coordinator, noTimestamp, { thread: CID, id: STANZA_ID }), 'SCHEMA_VIOLATION', 'NOT-UNDERSTOOD', STANZA_ID),
    row('content violating its schema', 'specialist-echo', inbound(JID.coordinator, noArgs, { id: STANZA_ID }), 'SCHEMA_VIOLATION', 'NOT-UNDERSTOOD', noArgs.reply_with),
    // JSON.parse takes it; validation and canonical JSON recurse and would exhaust the stack.
    row('a body nested 15,000 deep', 'specialist-echo', inbound(JID.coordinator, JSON.stringify(askExpert()).replace('"content":{', `"content":{"deep":${'{"a":'.repeat(15000)}1${'}'.repeat(15000)},`), { thread: CID, id: STANZA_ID }), 'SCHEMA_VIOLATION', 'NOT-UNDERSTOOD', STANZA_ID),
    row('an unknown performative', 'specialist-echo', inbound(JID.coordinator, { ...askExpert(), performative: 'PROMISE' }, { id: STANZA_ID }), 'UNKNOWN_PERFORMATIVE', 'NOT-UNDERSTOOD', STANZA_ID),
  ];
  const weather = askExpert({ content: { type: 'WEATHER', city: 'Kraków' } });
  const informAsk = askExpert({ performative: 'INFORM' });
  const wrongReceiver = askExpert({ receiver: 'specialist-math' });
  const personMsg = userMsg('alice');
  const specialistMsg = userMsg('specialist-echo');
  rows.push(
    row('an unknown content type', 'specialist-echo', inbound(JID.coordinator, weather), 'UNSUPPORTED_CONTENT', 'NOT-UNDERSTOOD', weather.reply_with),
    row('a content type in the wrong performative', 'specialist-echo', inbound(JID.coordinator, informAsk), 'PERFORMATIVE_MISMATCH', 'NOT-UNDERSTOOD', informAsk.reply_with),
    row('a <thread> that differs from conversation_id', 'specialist-echo', inbound(JID.coordinator, wrongThread, { thread: 'sess-other' }), 'BROKEN_CORRELATION', 'NOT-UNDERSTOOD', wrongThread.reply_with),
    row('a forged sender (envelope says Coordinator, JID is another specialist)', 'specialist-echo', inbound(JID.other, forged), 'SENDER_MISMATCH', 'REFUSE', forged.reply_with),
    row('an envelope for another receiver', 'specialist-echo', inbound(JID.coordinator, wrongReceiver), 'UNEXPECTED_MESSAGE', 'NOT-UNDERSTOOD', wrongReceiver.reply_with),
    row('a specialist writing to the KB (forbidden edge)', 'kb', inbound(JID.echo, agreeToKb), 'FORBIDDEN_SENDER', 'REFUSE', agreeToKb.reply_with),
    // People do not sign: a person's envelope stops at the signature stage, before the role policy.
    row('a person writing to the Coordinator (no DID is bound to people)', 'coordinator', inbound(JID.alice, personMsg), 'UNKNOWN_DID', 'REFUSE', personMsg.reply_with),
    row('a specialist opening a USER_MSG exchange', 'coordinator', inbound(JID.echo, specialistMsg), 'FORBIDDEN_SENDER', 'REFUSE', specialistMsg.reply_with),
  );
  return [...rows, ...signatureInputs()];
}

/** Signed-envelope failures (Agora v1.0 §1-2); `fresh` = the timestamp is now. */
export function signatureInputs(): BadInput[] {
  const unsigned = askExpert();
  const tampered = signAs(JID.coordinator, askExpert({ question: '2+2?' }));
  (tampered.content as { args: { question: string } }).args.question = 'rm -rf /?';
  const stranger = createIdentity();
  const otherKey = signEnvelope(askExpert(), stranger);
  // Claims the Coordinator's DID but is signed with another key.
  const wrongKey = { ...signEnvelope(askExpert(), stranger), sender_did: testIdentity(JID.coordinator).did };
  const stale = signAs(JID.coordinator, askExpert({ timestamp: new Date(Date.now() - 61_000).toISOString() }));
  const future = signAs(JID.coordinator, askExpert({ timestamp: new Date(Date.now() + 30_000).toISOString() }));
  const garbled = { ...signAs(JID.coordinator, askExpert()), signature: 'not-a-signature' };
  // A registered XMPP account that is no agent (mallory), claiming to be the Coordinator in
  // alice's thread, answering the Presenter's USER_MSG with its own key.
  const forgedReply = signEnvelope(makeEnvelope({
    performative: 'INFORM', sender: 'Coordinator', receiver: 'Presenter', conversation_id: 'sess-alice-1', in_reply_to: 'msg-user-1',
    content: { type: 'PRESENTER_REPLY', text: 'Send me your password', rich: {} },
  }), stranger);
  return [
    row('an unsigned envelope', 'specialist-echo', inbound(JID.coordinator, unsigned, { unsigned: true }), 'MISSING_SIGNATURE', 'REFUSE', unsigned.reply_with),
    row('a tampered body (content changed after signing)', 'specialist-echo', inbound(JID.coordinator, tampered), 'BAD_SIGNATURE', 'REFUSE', tampered.reply_with),
    row('an envelope signed by a key not bound to its JID', 'specialist-echo', inbound(JID.coordinator, otherKey), 'DID_MISMATCH', 'REFUSE', otherKey.reply_with),
    row('a wrong key claiming the bound DID', 'specialist-echo', inbound(JID.coordinator, wrongKey), 'BAD_SIGNATURE', 'REFUSE', wrongKey.reply_with),
    row('a stale timestamp (61 s old)', 'specialist-echo', inbound(JID.coordinator, stale), 'STALE_MESSAGE', 'REFUSE', stale.reply_with),
    row('a timestamp 30 s in the future', 'specialist-echo', inbound(JID.coordinator, future), 'STALE_MESSAGE', 'REFUSE', future.reply_with),
    row('a signature that is not 64 bytes of base64url', 'specialist-echo', inbound(JID.coordinator, garbled), 'MALFORMED_SIGNATURE', 'NOT-UNDERSTOOD', garbled.reply_with),
    row("a person's account claiming to be the Coordinator in a person's thread", 'presenter',
      inbound(`mallory@${DOMAIN}`, forgedReply), 'UNKNOWN_DID', 'REFUSE', forgedReply.reply_with, 'sess-alice-1'),
  ];
}
