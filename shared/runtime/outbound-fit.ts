// What an agent may not send: an envelope over the seed contract's 64 kB of content (§1). Its
// receiver would only answer NOT-UNDERSTOOD CONTENT_TOO_LARGE (and a requester then waited for its
// timeout), and over ejabberd's max_stanza_size (1 MB, ejabberd/ejabberd.yml.tmpl) the server
// closed the sender's stream; the resend after each reconnect closed it again, for as long as the
// envelope stayed in the resend window. Content an agent did not write can be that large: a
// model's answer through the LLM skill is bounded by nothing the specialist controls (measured:
// 1.2 MB of answer took the assistant specialist off the air; 100 kB left the person waiting
// 30 s for "Sorry"). An answer that large is not sent: a FAILURE that says why goes in its place,
// so the requester moves on at once. Anything else still goes out, for its receiver to refuse
// (NOT-UNDERSTOOD CONTENT_TOO_LARGE is the sender's answer, and its machine's to handle); past
// max_stanza_size the transport drops it (shared/transport guarded-send.ts).
import { contentByteSize, type Envelope, errorContent, makeEnvelope, MAX_CONTENT_BYTES, mayAnswerWithError } from '../acl/index.js';

/**
 * The content's size in bytes when it is over MAX_CONTENT_BYTES, else undefined. `body` is the
 * envelope as it would go out, which holds its content; a UTF-16 unit is at most 3 bytes of UTF-8,
 * so almost every envelope is judged by its length alone, without measuring anything.
 */
export function oversizedContent(envelope: Envelope, body: string): number | undefined {
  if (body.length * 3 <= MAX_CONTENT_BYTES) return undefined;
  const bytes = contentByteSize(envelope.content);
  return bytes > MAX_CONTENT_BYTES ? bytes : undefined;
}

/**
 * What goes out instead of an oversized envelope: for an answer (it has in_reply_to, and is no
 * error itself) a FAILURE INTERNAL_ERROR to the same request; for anything else undefined (it
 * goes out as it is). The fault is the sender's own, hence INTERNAL_ERROR, not the receiver's
 * CONTENT_TOO_LARGE. It takes the answer's reply_with: made again for a resend (the router's
 * recent sends after a crash), it is the same message, which the receiver drops as a copy.
 */
export function standInFor(envelope: Envelope, bytes: number): Envelope | undefined {
  if (!envelope.in_reply_to || !mayAnswerWithError(envelope.performative)) return undefined;
  return makeEnvelope({
    performative: 'FAILURE',
    sender: envelope.sender,
    receiver: envelope.receiver,
    conversation_id: envelope.conversation_id,
    protocol: envelope.protocol,
    in_reply_to: envelope.in_reply_to,
    reply_with: envelope.reply_with,
    content: errorContent('INTERNAL_ERROR', `the answer was ${bytes} bytes of content, over the ${MAX_CONTENT_BYTES}-byte limit (seed contract §1); it was not sent`),
  });
}
