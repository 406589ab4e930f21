// No agent sends an envelope over the seed contract's 64 kB of content (shared/runtime
// outbound-fit.ts), nor any stanza over ejabberd's max_stanza_size (shared/transport
// stanza-size.ts, guarded-send.ts). Over a real ejabberd: a model's oversized answer in
// test/integration/llm.test.ts, an oversized stanza in test/integration/transport-xml-safe.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { emit, setup } from 'xstate';
import { contentByteSize, type Envelope, MAX_CONTENT_BYTES, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { standInFor } from '../../shared/runtime/index.js';
import { guardedSend, MAX_STANZA_BYTES, messageStanza, stanzaBytesOver } from '../../shared/transport/index.js';
import { askExpert, JID } from '../support/bad-inputs.js';
import { inbound, testAgent } from '../support/fake-transport.js';

/** A specialist whose answer to any ASK_EXPERT is `answerChars` times "é". */
function bigAnswerer(answerChars: number) {
  const t = testAgent('specialist-echo');
  t.agent.router.on('ASK_EXPERT', (request) => ({
    machine: setup({ types: {} as { input: { request: Envelope }; context: { request: Envelope } } }).createMachine({
      context: ({ input }) => ({ request: input.request }),
      entry: emit(({ context }) => ({
        type: 'send' as const,
        envelope: replyTo(context.request, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: 'é'.repeat(answerChars) } } }),
      })),
      type: 'final',
    }),
    input: { request },
  }));
  return t;
}

describe('outbound [fit] nothing an agent sends is too large for its receiver or the server', () => {
  it('an answer over 64 kB of content is replaced by a FAILURE INTERNAL_ERROR to the same request, sent and resent as that', async () => {
    // 'é' is two bytes of UTF-8: 40,000 of them are 80,000 bytes of content but 40,000 characters.
    const { agent, transport } = bigAnswerer(40_000);
    const ask = askExpert({ question: 'sing' });
    agent.receive(inbound(JID.coordinator, ask));
    const sent = transport.envelopes();
    expect(sent).to.have.length(1);
    expect(sent[0]).to.include({ performative: 'FAILURE', in_reply_to: ask.reply_with, conversation_id: ask.conversation_id, receiver: ask.sender });
    expect(sent[0]?.content).to.include({ reason: 'INTERNAL_ERROR' });
    expect(String((sent[0]?.content as { detail?: string }).detail)).to.match(/^the answer was 80\d{3} bytes of content, over the 65536-byte limit/);
    expect(sent[0]?.signature, 'signed like any envelope').to.be.a('string');
    // The same request again (its requester lost our answer): the FAILURE again, never the oversized answer.
    agent.receive(inbound(JID.coordinator, ask));
    const again = transport.envelopes().slice(1);
    expect(again.map((e) => e.performative)).to.deep.equal(['FAILURE']);
    expect(transport.sent.every((m) => (m.body ?? '').length < MAX_CONTENT_BYTES)).to.equal(true);
  });

  it('any other envelope over 64 kB still goes out, for its receiver to refuse (NOT-UNDERSTOOD CONTENT_TOO_LARGE)', () => {
    const { agent, transport } = testAgent('coordinator');
    const big = askExpert({ question: 'é'.repeat(40_000), sender: 'Coordinator', receiver: 'specialist-echo' });
    agent.send(big);
    expect(transport.envelopes().map((e) => [e.performative, e.reply_with])).to.deep.equal([['REQUEST', big.reply_with]]);
  });

  it('the stand-in takes the answer\'s reply_with, so a resend made again is the same message', () => {
    const ask = askExpert({ question: 'sing' });
    const answer = replyTo(ask, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: 'é'.repeat(40_000) } } });
    const first = standInFor(answer, 80_000);
    const again = standInFor(answer, 80_000);
    expect(first).to.include({ performative: 'FAILURE', reply_with: answer.reply_with, in_reply_to: ask.reply_with });
    expect(again?.reply_with).to.equal(first?.reply_with);
    expect(standInFor({ ...answer, performative: 'FAILURE' }, 80_000), 'an error is never answered by an error').to.equal(undefined);
    expect(standInFor(ask, 80_000), 'a request has no stand-in').to.equal(undefined);
  });

  it('an answer just within 64 kB goes out as it is', () => {
    const { agent, transport } = bigAnswerer(32_000); // 64,000 bytes of answer, within the limit with its JSON
    agent.receive(inbound(JID.coordinator, askExpert({ question: 'sing' })));
    const [result] = transport.envelopes();
    expect(result?.performative).to.equal('INFORM');
    expect(contentByteSize(result?.content)).to.be.within(64_000, MAX_CONTENT_BYTES);
  });

  it('stanzaBytesOver: the exact wire size only when a stanza can be over the limit', () => {
    expect(stanzaBytesOver(messageStanza({ to: 'a@localhost', body: 'x'.repeat(170_000) }))).to.equal(undefined);
    const ascii = messageStanza({ to: 'a@localhost', id: 'm1', body: 'x'.repeat(MAX_STANZA_BYTES) });
    expect(stanzaBytesOver(ascii)).to.equal(Buffer.byteLength(ascii.toString()));
    // 250,000 ampersands are 250,000 characters but 1.25 MB once escaped (&amp;).
    const amps = messageStanza({ to: 'a@localhost', body: '&'.repeat(250_000) });
    expect(stanzaBytesOver(amps)).to.equal(Buffer.byteLength(amps.toString())).and.to.be.above(1_250_000);
    // 300,000 'é' are 600,000 bytes: within.
    expect(stanzaBytesOver(messageStanza({ to: 'a@localhost', body: 'é'.repeat(300_000) }))).to.equal(undefined);
    expect(stanzaBytesOver(xml('iq', { type: 'get', id: 'x' }, xml('ping', { xmlns: 'urn:xmpp:ping' })))).to.equal(undefined);
  });

  it('guardedSend drops a stanza over max_stanza_size with an error logged, and delivers every other', async () => {
    const delivered: string[] = [];
    const errors: unknown[] = [];
    const log = { ...silentLogger(), error: (o: unknown) => errors.push(o) } as ReturnType<typeof silentLogger>;
    const send = guardedSend(log, async (el) => { delivered.push(String(el.attrs.id)); });
    await send(messageStanza({ to: 'a@localhost', id: 'big', body: 'x'.repeat(MAX_STANZA_BYTES + 1) }));
    await send(messageStanza({ to: 'a@localhost', id: 'fine', body: 'hello \u0001' }));
    expect(delivered).to.deep.equal(['fine']);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ stanza: 'message', id: 'big' });
  });

  it('MAX_STANZA_BYTES is the max_stanza_size of every listener agents use (ejabberd/ejabberd.yml.tmpl)', () => {
    const tmpl = fs.readFileSync(path.join(repoRoot(), 'ejabberd', 'ejabberd.yml.tmpl'), 'utf8');
    const sizes = [...tmpl.matchAll(/max_stanza_size:\s*(\d+)/g)].map((m) => Number(m[1]));
    expect(sizes.length).to.be.at.least(4);
    for (const s of sizes) expect(s).to.equal(MAX_STANZA_BYTES);
  });
});
