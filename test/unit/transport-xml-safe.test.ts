// Only characters XML 1.0 allows leave an agent (shared/transport/xml-safe.ts), and envelope
// bodies keep U+FFFE/U+FFFF as JSON escapes (shared/acl envelopeJson). The attack over a real
// ejabberd: test/integration/transport-xml-safe.test.ts.
import xml from '@xmpp/xml';
import { expect } from 'chai';
import { envelopeJson, makeEnvelope, newConversationId } from '../../shared/acl/index.js';
import { createIdentity, signEnvelope, verifyEnvelope } from '../../shared/identity/index.js';
import { makeXmlSafe, messageStanza, xmlSafeText } from '../../shared/transport/index.js';

const T0 = Date.parse('2026-11-28T05:00:00.000Z');
const DISALLOWED = ['\u0000', '\u0001', '\u0008', '\u000B', '\u001F', '\uD800', '\uDFFF', '\uFFFE', '\uFFFF'];
const ALLOWED = '\t\n\r a~\u007F\u0085 żółć € \uD7FF\uE000\uFFFD 😀 \u{10FFFF}';

describe('transport [xml-safe] characters XML 1.0 disallows never leave an agent', () => {
  it('replaces each disallowed character (C0 controls, lone surrogates, U+FFFE/U+FFFF) by U+FFFD and keeps every allowed one', () => {
    for (const c of DISALLOWED) expect(xmlSafeText(`a${c}b`), JSON.stringify(c)).to.equal('a\uFFFDb');
    expect(xmlSafeText(ALLOWED)).to.equal(ALLOWED);
    // (joined with '-': '\uD800' then '\uDFFF' would be one valid pair)
    expect(xmlSafeText(`${DISALLOWED.join('-')}ok`)).to.equal(`${DISALLOWED.map(() => '\uFFFD').join('-')}ok`);
  });

  it('makes a whole stanza safe in place: attributes, text and nested children; says how many strings it changed', () => {
    const form = xml('x', { xmlns: 'jabber:x:data', type: 'form' }, xml('title', {}, 'pick \u0007 one'), xml('field', { var: 'a\uFFFF' }));
    const el = messageStanza({ to: 'alice@localhost', id: 'msg-\uFFFE', thread: 'sess-\uFFFF', body: 'answer \u0001 here', children: [form] });
    expect(makeXmlSafe(el)).to.equal(5);
    expect(el.attrs.id).to.equal('msg-\uFFFD');
    expect(el.getChildText('thread')).to.equal('sess-\uFFFD');
    expect(el.getChildText('body')).to.equal('answer \uFFFD here');
    expect(el.getChild('x')?.getChildText('title')).to.equal('pick \uFFFD one');
    expect(el.getChild('x')?.getChild('field')?.attrs.var).to.equal('a\uFFFD');
    expect(makeXmlSafe(el), 'safe now: nothing left to change').to.equal(0);
    const clean = messageStanza({ to: 'alice@localhost', thread: 'sess-1', body: ALLOWED });
    const before = clean.toString();
    expect(makeXmlSafe(clean)).to.equal(0);
    expect(clean.toString()).to.equal(before);
  });

  it('envelopeJson keeps U+FFFE/U+FFFF as JSON escapes: XML-safe text, the same envelope parsed, its signature still valid', () => {
    const alice = createIdentity();
    const env = signEnvelope(makeEnvelope({
      performative: 'NOT-UNDERSTOOD', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: newConversationId(),
      timestamp: new Date(T0).toISOString(),
      content: { type: 'ERROR', code: 'UNKNOWN_PERFORMATIVE', detail: 'unknown performative "REQUEST\uFFFF\uFFFE" \u0001 \uD800' },
    }), alice);
    const text = envelopeJson(env);
    expect(xmlSafeText(text)).to.equal(text);
    expect(text).to.include('\\uffff\\ufffe');
    expect(JSON.parse(text)).to.deep.equal(env);
    expect(verifyEnvelope(JSON.parse(text), { now: () => T0 + 1000 })).to.include({ ok: true });
    const plain = makeEnvelope({ performative: 'INFORM', sender: 'a', receiver: 'b', conversation_id: 'sess-1', content: { type: 'X' } });
    expect(envelopeJson(plain)).to.equal(JSON.stringify(plain));
  });
});
