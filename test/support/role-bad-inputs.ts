// The bad-input kinds of test/support/bad-inputs.ts (one pipeline, docs/architecture.md), built
// for a real role process: each row is a stanza a legitimate peer of the role (or, for the
// forbidden edge, a specialist that may not talk to it) sends, with the FIPA error, reason code
// and correlation the role must answer (seed contract §1, §5; shared/acl/errors.ts). Signed
// with the instance's real keys, as the role's trust store requires.
import { randomUUID } from 'node:crypto';
import {
  type Envelope, makeEnvelope, type ErrorCode, type ErrorPerformative, type Performative,
} from '../../shared/acl/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import { signWithAccount } from './signing.js';

/** What a legitimate peer sends the role: an initiating request, or (Presenter) a reply. */
export interface RoleTarget {
  /** Logical name of the role (the envelope receiver). */
  name: string;
  /** Account and logical name of a peer the policy lets talk to it. */
  peer: { account: string; name: string };
  performative: Performative;
  content: () => Record<string, unknown>;
  /** Set for roles nobody opens exchanges with (the Presenter only gets replies). */
  inReplyTo?: string;
  /** A performative the content kind does not travel in. */
  wrongPerformative: Performative;
  /** The content with a required field removed. */
  broken: (content: Record<string, unknown>) => Record<string, unknown>;
  /** FORBIDDEN_SENDER by edge (may not talk to the role) or by initiation (may not open this kind). */
  forbidden: { account: string; name: string; performative: Performative; content: () => Record<string, unknown> };
}

export interface Stanza {
  /** Sending account. */
  account: string;
  id: string;
  thread: string;
  body: string;
}

export interface RoleBadInput {
  name: string;
  stanza: Stanza;
  performative: ErrorPerformative;
  code: ErrorCode;
  inReplyTo: string;
  conversationId: string;
}

export function roleBadInputs(cfg: ParleyConfig, t: RoleTarget): RoleBadInput[] {
  const rows: RoleBadInput[] = [];
  const add = (name: string, env: Envelope | string, code: ErrorCode, performative: ErrorPerformative, o: { account?: string; thread?: string; byStanza?: boolean } = {}) => {
    const cid = typeof env === 'string' ? `sess-bad-${randomUUID()}` : env.conversation_id;
    const id = `bad-${randomUUID()}`;
    const body = typeof env === 'string' ? env : JSON.stringify(env);
    const inReplyTo = o.byStanza || typeof env === 'string' ? id : env.reply_with;
    rows.push({ name, stanza: { account: o.account ?? t.peer.account, id, thread: o.thread ?? cid, body }, performative, code, inReplyTo, conversationId: cid });
  };
  const base = (over: Partial<Envelope> = {}, content = t.content()): Envelope => ({
    ...makeEnvelope({
      performative: t.performative, sender: t.peer.name, receiver: t.name, conversation_id: `sess-bad-${randomUUID()}`, content,
      ...(t.inReplyTo ? { in_reply_to: t.inReplyTo } : {}),
    }),
    ...over,
  });
  const signed = (env: Envelope, account = t.peer.account) => signWithAccount(cfg, account, env);

  add('a body that is not JSON', 'hello, not json', 'INVALID_JSON', 'NOT-UNDERSTOOD');
  add('a body over 96 kB', `{"pad":"${'y'.repeat(97 * 1024)}"}`, 'CONTENT_TOO_LARGE', 'NOT-UNDERSTOOD');
  add('content over 64 kB', signed(base({}, { ...t.content(), padding: 'x'.repeat(65 * 1024) })), 'CONTENT_TOO_LARGE', 'NOT-UNDERSTOOD');
  add('content violating its schema', signed(base({}, t.broken(t.content()))), 'SCHEMA_VIOLATION', 'NOT-UNDERSTOOD');
  add('an unknown performative', signed(base({ performative: 'PROMISE' as Performative })), 'UNKNOWN_PERFORMATIVE', 'NOT-UNDERSTOOD', { byStanza: true });
  // A JSON escape XML may not carry raw: the reply quotes it, and a raw U+FFFF made ejabberd close the role's stream (xml-safe.ts).
  add('a performative holding U+FFFF (a JSON escape)', JSON.stringify(base({ performative: 'PROMISE\uffff' as Performative })).replace('\uffff', '\\uffff'), 'UNKNOWN_PERFORMATIVE', 'NOT-UNDERSTOOD');
  // JSON.parse takes it; validation and canonical JSON recurse (pipeline.ts classify).
  add('a body nested 15,000 deep', JSON.stringify(base()).replace('"content":{', `"content":{"deep":${'{"a":'.repeat(15000)}1${'}'.repeat(15000)},`), 'SCHEMA_VIOLATION', 'NOT-UNDERSTOOD');
  add('an unknown content type', signed(base({}, { type: 'WEATHER', city: 'Kraków' })), 'UNSUPPORTED_CONTENT', 'NOT-UNDERSTOOD');
  add('its content in the wrong performative', signed(base({ performative: t.wrongPerformative })), 'PERFORMATIVE_MISMATCH', 'NOT-UNDERSTOOD');
  add('a <thread> that differs from conversation_id', signed(base()), 'BROKEN_CORRELATION', 'NOT-UNDERSTOOD', { thread: `sess-other-${randomUUID()}` });
  add('a forged sender (the envelope names another agent)', signed(base({ sender: t.name === 'Registry' ? 'KB' : 'Registry' })), 'SENDER_MISMATCH', 'REFUSE');
  add('an envelope for another receiver', signed(base({ receiver: t.name === 'KB' ? 'Registry' : 'KB' })), 'UNEXPECTED_MESSAGE', 'NOT-UNDERSTOOD');
  const f = t.forbidden;
  add(`a forbidden sender (${f.name} ${f.performative})`, signed({
    ...makeEnvelope({ performative: f.performative, sender: f.name, receiver: t.name, conversation_id: `sess-bad-${randomUUID()}`, content: f.content() }),
  }, f.account), 'FORBIDDEN_SENDER', 'REFUSE', { account: f.account });
  add('an unsigned envelope', base(), 'MISSING_SIGNATURE', 'REFUSE');
  // Changed after signing, still schema-valid (the schema is checked before the signature).
  const tampered = signed(base());
  add('a tampered envelope (changed after signing)', { ...tampered, conversation_id: `${tampered.conversation_id}-x` }, 'BAD_SIGNATURE', 'REFUSE');
  add('a reply to nothing we sent (unknown in_reply_to)', signed(makeEnvelope({
    performative: 'AGREE', sender: t.peer.name, receiver: t.name, conversation_id: `sess-bad-${randomUUID()}`,
    in_reply_to: `msg-nobody-${randomUUID()}`, content: { status: 'accepted' },
  })), 'BROKEN_CORRELATION', 'NOT-UNDERSTOOD');
  return rows;
}
