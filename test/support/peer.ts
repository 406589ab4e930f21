// A raw envelope peer for integration tests: an XMPP account that signs and sends envelopes to
// one agent and awaits replies by in_reply_to (event-driven, not polling). It never answers
// anything itself, so the agent under test is observed alone.
import { randomUUID } from 'node:crypto';
import { type Envelope, makeEnvelope, replyTo } from '../../shared/acl/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { jidOfName } from '../../shared/runtime/index.js';
import { clientTransport, type XmppTransport } from '../../shared/transport/index.js';
import type { TestInstance } from './ejabberd.js';
import { signWithAccount } from './signing.js';

export class EnvelopePeer {
  readonly inbox: Envelope[] = [];
  private readonly waiting = new Map<string, (env: Envelope) => void>();

  private constructor(
    readonly name: string,
    readonly receiver: string,
    private readonly t: XmppTransport,
    private readonly domain: string,
    private readonly sign: (env: Envelope) => Envelope,
  ) {
    t.onMessage((m) => {
      let env: Envelope;
      try {
        env = JSON.parse(m.body ?? '') as Envelope;
      } catch {
        return; // not an envelope: ignore
      }
      this.inbox.push(env);
      if (env.in_reply_to) this.waiting.get(env.in_reply_to)?.(env);
    });
  }

  /** Connects `account` (logical name `name`) to talk to the agent named `receiver`. */
  static async connect(inst: TestInstance, account: string, receiver: string, name = account): Promise<EnvelopePeer> {
    const { jid, password } = await inst.account(account);
    const t = clientTransport({ jid, password, host: inst.cfg.host, port: inst.cfg.c2sPort, logger: silentLogger(), resource: `test-${randomUUID().slice(0, 8)}` });
    await t.start();
    return new EnvelopePeer(name, receiver, t, inst.cfg.domain, (env) => signWithAccount(inst.cfg, account, env));
  }

  get jid(): string {
    return this.t.address;
  }

  /** Signs and sends; `body` may replace the wire text (to send a corrupted envelope). */
  send(performative: Envelope['performative'], content: object, conversation_id = `test-${this.name}-${randomUUID()}`, body?: (env: Envelope) => string): Envelope {
    const env = this.sign(makeEnvelope({ performative, sender: this.name, receiver: this.receiver, conversation_id, content }));
    this.t.send({ to: jidOfName(this.receiver, this.domain), type: 'normal', id: env.reply_with, thread: conversation_id, body: body ? body(env) : JSON.stringify(env) });
    return env;
  }

  /** Signs and sends an answer to `to` (in_reply_to its reply_with), e.g. an ACCEPT-PROPOSAL to a PROPOSE. */
  answer(to: Envelope, performative: Envelope['performative'], content: object): Envelope {
    const env = this.sign(replyTo(to, { performative, sender: this.name, content }));
    this.t.send({ to: jidOfName(this.receiver, this.domain), type: 'normal', id: env.reply_with, thread: env.conversation_id, body: JSON.stringify(env) });
    return env;
  }

  /** The reply to `env`, already received or awaited. */
  reply(env: Envelope, what: string = env.performative, timeoutMs = 5000): Promise<Envelope> {
    const known = this.inbox.find((e) => e.in_reply_to === env.reply_with);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(env.reply_with);
        reject(new Error(`no reply within ${timeoutMs} ms to ${what}`));
      }, timeoutMs);
      this.waiting.set(env.reply_with, (r) => {
        clearTimeout(timer);
        this.waiting.delete(env.reply_with);
        resolve(r);
      });
    });
  }

  repliesTo(env: Envelope): Envelope[] {
    return this.inbox.filter((e) => e.in_reply_to === env.reply_with);
  }

  async ask(performative: Envelope['performative'], content: object, conversation_id?: string, timeoutMs = 5000): Promise<Envelope> {
    const env = this.send(performative, content, conversation_id);
    return this.reply(env, JSON.stringify(content).slice(0, 80), timeoutMs);
  }

  stop(): Promise<void> {
    return this.t.stop();
  }
}
