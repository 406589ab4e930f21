// agents/presenter/lines-at-risk.ts: a line to a person said just before the server went away is
// said again once it is back (a stopping ejabberd acknowledges stanzas it then drops); older lines
// and chat states are not repeated.
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { LinesAtRisk } from '../../agents/presenter/lines-at-risk.js';
import type { OutboundMessage } from '../../shared/transport/index.js';

function fakeTransport() {
  const events = new EventEmitter();
  const sent: OutboundMessage[] = [];
  return { sent, emit: (e: 'online' | 'offline') => events.emit(e), send: (m: OutboundMessage) => sent.push(m), on: (e: 'online' | 'offline', h: () => void) => events.on(e, h) };
}

describe('Presenter [lines at risk] lines said just before the server went away are said again', () => {
  it('resends the lines of the last 5 s after reconnecting, with their ids; not chat states, not older lines', () => {
    let now = 1_000_000;
    const t = fakeTransport();
    const lines = new LinesAtRisk(t, () => now);
    lines.send({ type: 'chat', to: 'ann@localhost/a', id: 'pl-old', body: 'an old answer' });
    now += 6000;
    lines.send({ type: 'chat', to: 'ann@localhost/a', id: 'pl-1', body: 'It is 4' });
    lines.send({ type: 'chat', to: 'bob@localhost/b', chatState: 'composing' });
    now += 100;
    lines.send({ type: 'chat', to: 'bob@localhost/b', id: 'pl-2', body: 'It is 9' });
    t.emit('offline');
    lines.send({ type: 'chat', to: 'ann@localhost/a', id: 'pl-3', body: 'said while away: queued by the transport' });
    t.sent.length = 0;
    t.emit('online');
    expect(t.sent.map((m) => m.id)).to.deep.equal(['pl-1', 'pl-2']);
    // The server goes away again right after (a stop after a brief reconnect): the copies may be
    // dropped too, so everything still within 5 s of its first send goes again, pl-3 among them.
    t.sent.length = 0;
    now += 200;
    t.emit('offline');
    t.emit('online');
    expect(t.sent.map((m) => m.id)).to.deep.equal(['pl-1', 'pl-2', 'pl-3']);
    // Later than 5 s after them: nothing.
    t.sent.length = 0;
    now += 6000;
    t.emit('offline');
    t.emit('online');
    expect(t.sent).to.deep.equal([]);
  });
});
