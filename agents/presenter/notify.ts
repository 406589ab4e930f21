// INFORM NOTIFY_USER from the Coordinator (docs/oacop.md): tell a person something they did not
// ask for here — a task assigned to them, progress on a task they assigned, a meeting. The chat
// line (and rich.ics, as a second message) goes out through the invoked `deliver` actor that
// main.ts provides; a person outside the allow-list is never messaged: FAILURE INVALID_ARGS.
import { emit, fromPromise, setup } from 'xstate';
import { replyTo, errorContent } from '../../shared/acl/index.js';
import type { ExchangeEmitted, ExchangeInput } from '../../shared/runtime/index.js';
import type { ChatEmitted } from './machine.js';
import { choicesOf } from './choices.js';
import { icsOf } from './render.js';

export interface NotifyInput extends ExchangeInput {
  /** Whether the Presenter may talk to this bare JID (its allow-list). */
  allowed: (jid: string) => boolean;
}

export const notifyMachine = setup({
  types: {} as { input: NotifyInput; context: NotifyInput; emitted: ExchangeEmitted },
  actors: {
    deliver: fromPromise<void, ChatEmitted>(async () => {
      throw new Error('provided by main.ts');
    }),
  },
  guards: {
    allowed: ({ context }) => context.allowed(String(context.request.content.user)),
  },
}).createMachine({
  id: 'presenter-notify',
  context: ({ input }) => input,
  initial: 'checking',
  states: {
    checking: {
      always: [
        { guard: 'allowed', target: 'delivering' },
        {
          target: 'done',
          actions: emit(({ context }) => ({
            type: 'send' as const,
            envelope: replyTo(context.request, {
              performative: 'FAILURE',
              content: errorContent('INVALID_ARGS', `${String(context.request.content.user)} is not a person this Presenter may message`),
            }),
          })),
        },
      ],
    },
    delivering: {
      invoke: {
        src: 'deliver',
        input: ({ context }) => {
          const c = context.request.content;
          const ics = icsOf(c.rich);
          const choices = choicesOf(c.rich);
          return {
            type: 'chat' as const, to: String(c.user), text: String(c.text), thread: context.request.conversation_id, chatState: 'active' as const,
            ...(ics ? { ics } : {}),
            ...(choices ? { choices } : {}),
          };
        },
        onDone: { target: 'done', actions: emit({ type: 'note', decision: 'notified' }) },
        onError: { target: 'done', actions: emit(({ event }) => ({ type: 'note' as const, decision: 'notify-failed', detail: { err: String(event.error) } })) },
      },
    },
    done: { type: 'final' },
  },
});
