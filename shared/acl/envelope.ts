// Building and answering FIPA-ACL envelopes (seed contract §1).
import { randomFillSync } from 'node:crypto';
import type { Envelope, Performative, Protocol } from '../contracts/index.js';
import { defaultProtocol } from './performatives.js';

export type { Envelope };
export type Content = Envelope['content'];
/**
 * What builders accept as content: any generated content interface (AskExpertContent, …) or a
 * plain object. Generated interfaces have no index signature, so they are not assignable to
 * Content directly; validation against contracts/ is the pipeline's job.
 */
export type ContentInput = object;

/** Seed contract §1: content ≤ 64 kB (POC), measured as UTF-8 bytes of its JSON. */
export const MAX_CONTENT_BYTES = 64 * 1024;
export const DEFAULT_ONTOLOGY = 'MAS.Core';
export const LANGUAGE = 'application/json';

/**
 * A fresh reply_with value: msg-<uuid>, a UUIDv7 (RFC 9562 §5.7: Unix milliseconds, then 74
 * random bits). Time-ordered on purpose: the inbound ledgers are B-trees keyed by (sender,
 * reply_with), kept for 24 h, and a random key put every insert on a random page of a tree that
 * grows all day; in time order each sender's new ids land on the same few pages at its end
 * (docs/bench.md "stop 33"). The random part is as unguessable as it needs to be: a reply is only
 * matched to its exchange when it comes from the peer it was sent to (router, signatures).
 */
export function newId(): string {
  return `msg-${uuidV7()}`;
}

/** Random bytes for uuidV7, drawn from the CSPRNG 2,560 at a time (as randomUUID keeps its own pool). */
const pool = Buffer.alloc(2560);
let poolAt = pool.length;

/** RFC 9562 §5.7 UUIDv7 string for `now` (ms since the epoch). */
export function uuidV7(now: number = Date.now()): string {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = Buffer.allocUnsafe(16);
  b.writeUIntBE(Math.floor(now) % 2 ** 48, 0, 6);
  pool.copy(b, 6, poolAt, poolAt + 10);
  poolAt += 10;
  b[6] = ((b[6] as number) & 0x0f) | 0x70; // version 7
  b[8] = ((b[8] as number) & 0x3f) | 0x80; // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A fresh conversation_id (= XMPP thread = session_id, seed contract §1): sess-<uuid>, a UUIDv7
 * like newId and for the same reason: the KB's facts are indexed by session (facts_session), and
 * a random id put each STORE_FACT on a random page of an index that grows all day (after 195,000
 * facts: 77 µs and 29 KiB written per fact, 52 µs and 23 KiB in time order; docs/bench.md "stop
 * 35"). Threads a client sends (XEP-0201) stay as they are.
 */
export function newConversationId(): string {
  return `sess-${uuidV7()}`;
}

/** UTC ISO-8601 with Z, e.g. 2025-11-07T19:55:00.000Z (seed contract §1). */
export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}

/** UTF-8 byte size of JSON.stringify(content), the unit of the 64 kB limit. */
export function contentByteSize(content: unknown): number {
  return Buffer.byteLength(JSON.stringify(content) ?? '', 'utf8');
}

export interface EnvelopeInit {
  performative: Performative;
  sender: string;
  receiver: string;
  conversation_id: string;
  content: ContentInput;
  protocol?: Protocol;
  ontology?: string;
  in_reply_to?: string;
  /** Defaults to newId(). */
  reply_with?: string;
  /** Defaults to now. */
  timestamp?: string;
}

/** Fills reply_with, timestamp, ontology MAS.Core, language and the protocol for the performative. */
export function makeEnvelope(init: EnvelopeInit): Envelope {
  const envelope: Envelope = {
    performative: init.performative,
    sender: init.sender,
    receiver: init.receiver,
    conversation_id: init.conversation_id,
    reply_with: init.reply_with ?? newId(),
    ontology: init.ontology ?? DEFAULT_ONTOLOGY,
    protocol: init.protocol ?? defaultProtocol(init.performative),
    language: LANGUAGE,
    timestamp: init.timestamp ?? nowIso(),
    content: init.content as Content,
  };
  // Initiating messages have no in_reply_to at all (absent, not empty).
  if (init.in_reply_to !== undefined) envelope.in_reply_to = init.in_reply_to;
  return envelope;
}

export interface ReplyInit {
  performative: Performative;
  content: ContentInput;
  /** Defaults to the request's receiver (the agent answering). */
  sender?: string;
  reply_with?: string;
  timestamp?: string;
}

/**
 * Answer to `request`: swaps sender/receiver, keeps conversation_id, protocol and ontology, and
 * sets in_reply_to = request.reply_with (seed contract §1 correlation rule).
 */
export function replyTo(request: Envelope, init: ReplyInit): Envelope {
  return makeEnvelope({
    performative: init.performative,
    sender: init.sender ?? request.receiver,
    receiver: request.sender,
    conversation_id: request.conversation_id,
    protocol: request.protocol,
    ontology: request.ontology,
    in_reply_to: request.reply_with,
    content: init.content,
    reply_with: init.reply_with,
    timestamp: init.timestamp,
  });
}

/** True when `reply` answers `request` (same conversation, in_reply_to = reply_with). */
export function isReplyTo(reply: Envelope, request: Envelope): boolean {
  return reply.conversation_id === request.conversation_id && reply.in_reply_to === request.reply_with;
}

/** U+FFFE and U+FFFF: the only characters JSON.stringify leaves raw that XML 1.0 disallows. */
const XML_NONCHARACTERS = /[\uFFFE\uFFFF]/g;

/**
 * The envelope as the JSON text of a message body. JSON.stringify already escapes the C0 controls
 * and lone surrogates (which XML may not carry either); U+FFFE and U+FFFF are escaped here too, so
 * an envelope holding them (a peer's text passed on) crosses ejabberd unchanged and its signature
 * still verifies (shared/transport/xml-safe.ts would otherwise replace them, and ejabberd closes
 * the stream of whoever sends them raw).
 */
export function envelopeJson(envelope: Envelope): string {
  return JSON.stringify(envelope).replace(XML_NONCHARACTERS, (c) => (c === '\uFFFE' ? '\\ufffe' : '\\uffff'));
}
