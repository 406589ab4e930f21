import { expect } from 'chai';
import { xml } from '@xmpp/client';
import { readMessage } from '../../shared/transport/index.js';
import { discoInfo } from '../../agents/presenter/adhoc.js';
import { acknowledgement, NS_MARKERS, NS_RECEIPTS, takenIn } from '../../agents/presenter/receipts.js';

const line = (attrs: Record<string, string>, ...children: ReturnType<typeof xml>[]) =>
  readMessage(xml('message', { from: 'alice@parley.local/phone', to: 'presenter@parley.local', ...attrs }, xml('body', {}, 'what is 2+2?'), ...children));

describe('Presenter [receipts] delivered and read, as a person\'s client shows a line (XEP-0184, XEP-0333)', () => {
  it('a line asking for a receipt and markable gets <received/> and <displayed/> naming its id, in its thread, to the sending resource', () => {
    const ack = acknowledgement(line({ type: 'chat', id: 'm-1' }, xml('thread', {}, 't-9'), xml('request', { xmlns: NS_RECEIPTS }), xml('markable', { xmlns: NS_MARKERS })));
    expect(ack?.attrs.to).to.equal('alice@parley.local/phone');
    expect(ack?.attrs.type).to.equal('chat');
    expect(ack?.attrs.id).to.match(/^ack-/).and.not.equal('m-1');
    expect(ack?.getChild('received', NS_RECEIPTS)?.attrs.id).to.equal('m-1');
    expect(ack?.getChild('displayed', NS_MARKERS)?.attrs.id).to.equal('m-1');
    expect(ack?.getChildText('thread')).to.equal('t-9');
    expect(ack?.getChild('body'), 'an acknowledgement is no chat line').to.equal(undefined);
  });

  it('only what was asked: a receipt alone, a marker alone', () => {
    const r = acknowledgement(line({ type: 'chat', id: 'a' }, xml('request', { xmlns: NS_RECEIPTS })));
    expect(r?.getChild('received', NS_RECEIPTS)?.attrs.id).to.equal('a');
    expect(r?.getChild('displayed', NS_MARKERS)).to.equal(undefined);
    const m = acknowledgement(line({ type: 'chat', id: 'b' }, xml('markable', { xmlns: NS_MARKERS })));
    expect(m?.getChild('received', NS_RECEIPTS)).to.equal(undefined);
    expect(m?.getChild('displayed', NS_MARKERS)?.attrs.id).to.equal('b');
  });

  it('nothing for a line that asked nothing, has no id, is an error or groupchat, or with the request in another namespace', () => {
    expect(acknowledgement(line({ type: 'chat', id: 'c' }))).to.equal(undefined);
    expect(acknowledgement(line({ type: 'chat' }, xml('request', { xmlns: NS_RECEIPTS })))).to.equal(undefined);
    expect(acknowledgement(line({ type: 'error', id: 'e' }, xml('request', { xmlns: NS_RECEIPTS })))).to.equal(undefined);
    expect(acknowledgement(line({ type: 'groupchat', id: 'g' }, xml('request', { xmlns: NS_RECEIPTS })))).to.equal(undefined);
    expect(acknowledgement(line({ type: 'chat', id: 'x' }, xml('request', { xmlns: 'urn:example' })))).to.equal(undefined);
  });

  it('a line ignored or refused (not on the allow list) is not acknowledged; one asked, queued, answered or a duplicate is', () => {
    expect(['ignored', 'refused'].map(takenIn)).to.deep.equal([false, false]);
    expect(['asked', 'queued', 'set-aside', 'too-long', 'renewed', 'duplicate'].map(takenIn)).to.deep.equal([true, true, true, true, true, true]);
  });

  it('disco#info lists both features on the Presenter itself, not on a command node', () => {
    const vars = (el: ReturnType<typeof discoInfo>) => el.getChildren('feature').map((f) => f.attrs.var);
    expect(vars(discoInfo(undefined))).to.include.members([NS_RECEIPTS, NS_MARKERS]);
    expect(vars(discoInfo('tz'))).to.not.include(NS_RECEIPTS);
  });
});
