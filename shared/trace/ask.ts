// A person asking the Presenter over XMPP, as a chat client would: plain-text chat, a fresh
// <thread> (the Presenter reuses it as the conversation_id, seed contract §1), then the answer.
import xml, { type Element } from '@xmpp/xml';
import { newConversationId, nowIso } from '../acl/index.js';
import type { ParleyConfig } from '../config/index.js';
import { ensureAccount } from '../ejabberd/index.js';
import { silentLogger } from '../log/index.js';
import { preciseNow } from '../runtime/index.js';
import { clientTransport, bare, type InboundMessage, type XmppTransport } from '../transport/index.js';

const SETTLE_MS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Answer {
  thread: string;
  question: string;
  answer: string;
  askedAt: number;
  answeredAt: number;
  ms: number;
}

export class Person {
  private readonly waiting = new Map<string, (m: InboundMessage) => void>();
  private constructor(readonly jid: string, readonly presenter: string, private readonly t: XmppTransport) {
    t.onMessage((m) => {
      if (m.fromBare !== presenter || m.type === 'error' || !m.body || !m.thread) return;
      // "Still working on it" comes with chat state composing: the answer is still to come.
      if (m.chatState === 'composing') return;
      this.waiting.get(m.thread)?.(m);
    });
  }

  /** Connects as `localpart` (its account is created when missing) and subscribes to the Presenter. */
  static async connect(cfg: ParleyConfig, localpart: string): Promise<Person> {
    const { jid, password } = await ensureAccount(cfg, localpart);
    const t = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger: silentLogger(), resource: `person-${process.pid}-${Math.random().toString(36).slice(2, 8)}` });
    const presenter = `presenter@${cfg.domain}`;
    const fromPresenter = (p: Element, type: string) => p.attrs.type === type && bare(String(p.attrs.from ?? '')) === presenter;
    let subscribed: () => void = () => undefined;
    const accepted = new Promise<void>((resolve) => (subscribed = resolve));
    t.onPresence((p) => {
      // Mutual subscription, as a chat client does when the Presenter asks for it back.
      if (fromPresenter(p, 'subscribe')) t.sendRaw(xml('presence', { to: presenter, type: 'subscribed' })).catch(() => undefined);
      if (fromPresenter(p, 'subscribed')) subscribed();
    });
    const online = new Promise<void>((resolve) => t.on('online', () => resolve()));
    await t.start();
    await online;
    // xmpp.js 0.14 can miscount stanzas that arrive while XEP-0198 is being enabled, and ejabberd
    // then closes the stream ("acknowledged more stanzas than sent"); a question sent meanwhile is
    // sent twice after the reconnect. So: let the stream settle and finish the subscription first.
    await sleep(SETTLE_MS);
    await t.sendRaw(xml('presence', { to: presenter, type: 'subscribe' }));
    await Promise.race([accepted, sleep(2000)]);
    await sleep(SETTLE_MS);
    return new Person(jid, presenter, t);
  }

  /** Sends `question` in a new thread (or `thread`) and resolves with the Presenter's first reply in it. */
  ask(question: string, { timeoutMs = 60000, thread = newConversationId() } = {}): Promise<Answer> {
    const askedAt = preciseNow();
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(thread);
        reject(new Error(`no answer from ${this.presenter} within ${timeoutMs} ms (thread ${thread}, asked ${nowIso()})`));
      }, timeoutMs);
      this.waiting.set(thread, (m) => {
        clearTimeout(timer);
        this.waiting.delete(thread);
        const answeredAt = preciseNow();
        resolve({ thread, question, answer: m.body as string, askedAt, answeredAt, ms: answeredAt - askedAt });
      });
      this.t.send({ to: this.presenter, type: 'chat', thread, body: question });
    });
  }

  async close(): Promise<void> {
    // Go unavailable and let the server's last stanzas arrive before closing the stream:
    // xmpp.js throws (uncaught) on data that arrives after it detached its parser.
    await this.t.sendRaw(xml('presence', { type: 'unavailable' })).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    await this.t.stop();
  }
}
