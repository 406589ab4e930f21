// A person asking the Presenter over XMPP, as a chat client would: plain-text chat, a fresh
// <thread> (the Presenter reuses it as the conversation_id, seed contract §1), then the answer.
import xml, { type Element } from '@xmpp/xml';
import { newConversationId, nowIso } from '../acl/index.js';
import type { ParleyConfig } from '../config/index.js';
import { ensureAccount } from '../ejabberd/index.js';
import { silentLogger } from '../log/index.js';
import { preciseNow } from '../runtime/index.js';
import { type ClientTransport, clientTransport, bare, type InboundMessage } from '../transport/index.js';

const NS_ROSTER = 'jabber:iq:roster';

/** Our subscription with `jid` as the server's roster has it (RFC 6121 §2.1.2.5: none/to/from/both). */
async function subscription(t: ClientTransport, jid: string): Promise<string> {
  const res = await t.iq(xml('iq', { type: 'get' }, xml('query', { xmlns: NS_ROSTER })));
  const item = res.getChild('query', NS_ROSTER)?.getChildren('item').find((i) => bare(String(i.attrs.jid ?? '')) === jid);
  return String(item?.attrs.subscription ?? 'none');
}

/**
 * Mutual presence subscription with the Presenter, as a chat client makes it (RFC 6121 §3.1):
 * we ask, it approves and asks back (agents/presenter/subscriptions.ts), we approve. Resolves
 * true once our roster says 'both' (at once when it already did), false after `timeoutMs`
 * (a Presenter not running, or one that refused us).
 */
export async function subscribeToPresenter(t: ClientTransport, presenter: string, timeoutMs = 3000): Promise<boolean> {
  const fromPresenter = (p: Element, type: string) => p.attrs.type === type && bare(String(p.attrs.from ?? '')) === presenter;
  // Something that changes the roster happened: the Presenter's answer arrived, or our approval
  // of its request went out (read after it on the same stream, the roster then shows it).
  let news = false;
  let refused = false;
  let wake = () => undefined as void;
  const changed = () => {
    news = true;
    wake();
  };
  t.onPresence((p) => {
    if (fromPresenter(p, 'subscribe')) t.sendRaw(xml('presence', { to: presenter, type: 'subscribed' })).then(changed, () => undefined);
    if (fromPresenter(p, 'unsubscribed')) refused = true;
    if (fromPresenter(p, 'subscribed') || refused) changed();
  });
  if ((await subscription(t, presenter)) === 'both') return true;
  await t.sendRaw(xml('presence', { to: presenter, type: 'subscribe' }));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0 || refused) return false;
    // Also read every 250 ms: a roster change that reached us in no presence is seen anyway.
    if (!news) await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(250, left));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    news = false;
    if ((await subscription(t, presenter)) === 'both') return true;
  }
}

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
  private constructor(readonly jid: string, readonly presenter: string, private readonly t: ClientTransport) {
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
    await t.start();
    // A question sent before XEP-0198 is enabled would be lost, not resent, if the stream broke.
    await t.streamManaged();
    await subscribeToPresenter(t, presenter);
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
    // Go unavailable and close once the server has handled that (XEP-0198 ack): xmpp.js throws
    // (uncaught) on data that arrives after it detached its parser.
    await this.t.sendRaw(xml('presence', { type: 'unavailable' })).catch(() => undefined);
    await this.t.acknowledged(2000);
    await this.t.stop();
  }
}
