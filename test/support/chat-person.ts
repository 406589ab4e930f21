// A person chatting with the Presenter for OACoP tests: unlike shared/trace/ask.ts (first reply
// per question), it keeps every line the Presenter sends — replies, the .ics that follows, and
// notifications nobody asked for — and waits for the one a test expects.
import { randomUUID } from 'node:crypto';
import xml from '@xmpp/xml';
import { newConversationId } from '../../shared/acl/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { silentLogger } from '../../shared/log/index.js';
import { subscribeToPresenter } from '../../shared/trace/index.js';
import { type ClientTransport, clientTransport, type InboundMessage } from '../../shared/transport/index.js';

export interface Line {
  thread: string;
  body: string;
  /** XEP-0066 url of the attachment (the .ics), when present. */
  oob?: string;
  /** A "still working on it" line (chat state composing): not the answer. */
  progress?: boolean;
  /** When it arrived (Date.now()). */
  at: number;
  /** The attachment's content, fetched from its XEP-0066 URL (the .ics). */
  file?: string;
  /** A choice form in the message (agents/presenter/choices.ts): its options' values. */
  choices?: string[];
}

export class ChatPerson {
  readonly lines: Line[] = [];
  /** Lines received again with an origin-id already seen (shown once by clients; see onMessage). */
  readonly copies: Line[] = [];
  private readonly seenIds = new Set<string>();
  private readonly waiters = new Set<() => void>();

  private constructor(readonly jid: string, readonly presenter: string, private readonly t: ClientTransport) {
    t.onMessage((m: InboundMessage) => {
      if (m.fromBare !== presenter || m.type === 'error' || !m.body) return;
      // A client shows a line once per id (XEP-0359 origin-id): a copy XEP-0198 sent again after
      // the server died is counted in `copies`, for the matrix to report, not as a second answer.
      const origin = m.stanza.getChild('origin-id', 'urn:xmpp:sid:0')?.attrs.id as string | undefined;
      if (origin !== undefined) {
        if (this.seenIds.has(origin)) {
          this.copies.push({ thread: m.thread ?? '', body: m.body, at: Date.now() });
          return;
        }
        this.seenIds.add(origin);
      }
      const oob = m.stanza.getChild('x', 'jabber:x:oob')?.getChildText('url') ?? undefined;
      const form = m.stanza.getChildren('x', 'jabber:x:data').find((x) => x.attrs.type === 'form');
      const choices = form?.getChildren('field').find((f) => f.attrs.var === 'say')?.getChildren('option').map((o) => o.getChildText('value') ?? '');
      const line: Line = {
        thread: m.thread ?? '', body: m.body, at: Date.now(), ...(oob ? { oob } : {}), ...(m.chatState === 'composing' ? { progress: true } : {}), ...(choices ? { choices } : {}),
      };
      // An attachment is fetched as a client would, before the line counts as received.
      const fetched = oob?.startsWith('http://') ? fetch(oob).then((r) => (r.ok ? r.text() : `HTTP ${r.status}`), (e: Error) => `fetch failed: ${e.message}`) : Promise.resolve(undefined);
      void fetched.then((file) => {
        this.lines.push(file === undefined ? line : { ...line, file });
        for (const w of [...this.waiters]) w();
      });
    });
  }

  static async connect(cfg: ParleyConfig, localpart: string): Promise<ChatPerson> {
    const { jid, password } = await ensureAccount(cfg, localpart);
    const t = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger: silentLogger(), resource: `chat-${Math.random().toString(36).slice(2, 8)}` });
    const presenter = `presenter@${cfg.domain}`;
    await t.start();
    await t.streamManaged(); // as shared/trace/ask.ts: nothing said before XEP-0198 is on
    await subscribeToPresenter(t, presenter);
    return new ChatPerson(jid, presenter, t);
  }

  say(text: string, thread: string = newConversationId()): string {
    // An id on every line, as every real client sets one: a line resent after a stream break
    // (XEP-0198) keeps it, and the Presenter handles it once.
    this.t.send({ to: this.presenter, type: 'chat', id: `line-${randomUUID()}`, thread, body: text });
    return thread;
  }

  /** The first line (already received or still to come) matching `pred`, after index `from`. */
  async waitFor(pred: (l: Line) => boolean, what: string, timeoutMs = 30000, from = 0): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.slice(from).find(pred);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.jid}: no line ${what} within ${timeoutMs} ms; got:\n${this.lines.map((l) => l.body.slice(0, 200)).join('\n---\n')}`);
      await new Promise<void>((resolve) => {
        const w = () => { this.waiters.delete(w); clearTimeout(timer); resolve(); };
        const timer = setTimeout(w, left);
        this.waiters.add(w);
      });
    }
  }

  /** Says `text` in a new thread; resolves with the answer and, when `ics`, the invitation (attachment) after it. */
  async ask(text: string, { ics = false, timeoutMs = 60000 } = {}): Promise<{ answer: string; thread: string; line: Line; ics?: Line }> {
    const thread = this.say(text);
    const answer = await this.waitFor((l) => l.thread === thread && !l.progress && l.oob === undefined, `answering "${text}"`, timeoutMs);
    if (!ics) return { answer: answer.body, thread, line: answer };
    return { answer: answer.body, thread, line: answer, ics: await this.waitFor((l) => l.thread === thread && l.file !== undefined, `with the .ics for "${text}"`, 5000) };
  }

  /** Answers a choice form as a client with forms does: a message carrying only the submitted form (no body). */
  choose(thread: string, say: string): void {
    this.t.send({
      to: this.presenter, type: 'chat', thread,
      children: [xml('x', { xmlns: 'jabber:x:data', type: 'submit' },
        xml('field', { var: 'FORM_TYPE' }, xml('value', {}, 'urn:parley:choice:1')), xml('field', { var: 'say' }, xml('value', {}, say)))],
    });
  }

  /** choose() and wait for the answer in that thread. */
  async chooseAndWait(thread: string, say: string, timeoutMs = 60000): Promise<string> {
    const from = this.lines.length;
    this.choose(thread, say);
    return (await this.waitFor((l) => l.thread === thread && !l.progress && l.oob === undefined, `answering the choice "${say}"`, timeoutMs, from)).body;
  }

  async close(): Promise<void> {
    await this.t.sendRaw(xml('presence', { type: 'unavailable' })).catch(() => undefined);
    await this.t.acknowledged(2000); // handled by the server before we close (see shared/trace/ask.ts)
    await this.t.stop();
  }
}
