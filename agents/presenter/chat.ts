// What the Presenter does with one chat line from a person: ignore it, refuse it, answer it
// locally ("new", too long), or open a question actor (machine.ts) that asks the Coordinator.
// Effects are injected so unit tests drive it without XMPP; main.ts wires the real ones.
import type { Envelope } from '../../shared/acl/index.js';
import type { InboundMessage } from '../../shared/transport/index.js';
import { type ChatEmitted, type QuestionInput, userMsg } from './machine.js';
import { charCount, MAX_TEXT_CHARS, TEXT } from './render.js';
import type { FairGate } from './fairness.js';
import type { ConversationIds } from './conversation-ids.js';
import { type AllowList, isAllowed } from './subscriptions.js';

export interface DeskDeps {
  allow: AllowList;
  conversationIds: ConversationIds;
  timeoutMs: number;
  /** See QuestionInput.progressMs / resultTimeoutMs. */
  progressMs?: number;
  resultTimeoutMs?: number;
  /** Our logical name (the USER_MSG sender). */
  self: string;
  now(): number;
  /** A line to a person, sent as <message type="chat">. */
  say(line: ChatEmitted): void;
  /** Starts the question actor; `onChat` receives the lines it emits. */
  ask(input: QuestionInput, onChat: (line: ChatEmitted) => void): void;
  /** Per-person rate limit and fair queueing (fairness.ts); absent = every line is asked at once. */
  fair?: FairGate;
}

export type LineOutcome = 'ignored' | 'refused' | 'too-long' | 'renewed' | 'asked' | 'queued' | 'set-aside';

/** "new" (or "/new") starts a new conversation. */
const NEW_COMMAND = /^\/?new$/i;

export class ChatDesk {
  /** Questions under way per person resource and thread: "composing" stays on until the last answer. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly deps: DeskDeps) {}

  handle(msg: InboundMessage): LineOutcome {
    // Only one-to-one chat (RFC 6121 §5.2.2); groupchat/headline/error lines are not questions.
    if (msg.type !== 'chat' && msg.type !== 'normal') return 'ignored';
    const text = (msg.body ?? '').trim();
    if (text === '') return 'ignored';
    const person = msg.fromBare;
    const now = this.deps.now();
    const say = (body: string, thread: string | undefined) =>
      this.deps.say({ type: 'chat', to: msg.from, text: body, chatState: 'active', thread: thread ?? '' });

    if (!isAllowed(this.deps.allow, person)) {
      say(TEXT.notAllowed, msg.thread);
      return 'refused';
    }
    const chars = charCount(text);
    if (chars > MAX_TEXT_CHARS) {
      say(TEXT.tooLong(chars), msg.thread);
      return 'too-long';
    }
    if (NEW_COMMAND.test(text)) {
      const s = this.deps.conversationIds.renew(person, msg.thread, now);
      say(TEXT.newConversation, s.thread);
      return 'renewed';
    }
    // Resolved when the line's turn comes (fairness.ts): a line set aside costs no session work.
    const job = (done: () => void) => {
      const session = this.deps.conversationIds.resolve(person, msg.thread, now);
      const request: Envelope = userMsg({ text, user: person, conversationId: session.conversationId, self: this.deps.self });
      const key = `${msg.from} ${session.thread}`;
      this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
      this.deps.ask({ request, replyTo: msg.from, thread: session.thread, timeoutMs: this.deps.timeoutMs,
        ...(this.deps.progressMs !== undefined ? { progressMs: this.deps.progressMs } : {}),
        ...(this.deps.resultTimeoutMs !== undefined ? { resultTimeoutMs: this.deps.resultTimeoutMs } : {}) }, (line) => {
        this.deps.say(line);
        if (line.chatState !== 'active') return;
        done(); // the question ended (answer, failure or apology): its person's next line may go
        const left = (this.pending.get(key) ?? 1) - 1;
        if (left > 0) {
          this.pending.set(key, left);
          this.deps.say({ ...line, text: undefined, chatState: 'composing' }); // another answer is still coming
        } else {
          this.pending.delete(key);
        }
      });
    };
    if (!this.deps.fair) {
      job(() => undefined);
      return 'asked';
    }
    const admitted = this.deps.fair.admit(person, job);
    return admitted === 'started' ? 'asked' : admitted;
  }
}
