// "my time zone is Europe/Berlin": saved (the `saveZone` actor, main.ts), then confirmed with the
// local time there so the person can check it. "/tz" alone says which zone is in use.
import { DateTime } from 'luxon';
import { emit, fromPromise, setup } from 'xstate';
import type { ExchangeEmitted } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply, userMsg } from '../envelopes.js';

export interface ZoneInput extends CoordinatorInput {
  /** The zone to save; absent = only say which one is in use (`current`). */
  zone?: string;
  current: string;
  now: string;
}

const localTime = (zone: string, now: string) => DateTime.fromISO(now).setZone(zone).setLocale('en-GB').toFormat('ccc d LLL, HH:mm');

export const zoneMachine = setup({
  types: {} as { input: ZoneInput; context: ZoneInput; emitted: ExchangeEmitted },
  actors: { saveZone: fromPromise<void, { person: string; zone: string }>(async () => undefined) },
  actions: {
    say: emit(({ context }, p: { text: string; status: string }) => ({
      type: 'send' as const,
      envelope: presenterReply(context.request, p.text, { kind: 'timezone', status: p.status, zone: context.zone ?? context.current }),
    })),
  },
}).createMachine({
  id: 'coordinator-timezone',
  context: ({ input }) => input,
  initial: 'deciding',
  states: {
    deciding: { always: [{ guard: ({ context }) => context.zone === undefined, target: 'showing' }, { target: 'saving' }] },
    showing: {
      entry: { type: 'say', params: ({ context }) => ({ status: 'current', text: `Your times are shown in ${context.current} (it is ${localTime(context.current, context.now)} there). Change it with "my time zone is Europe/Berlin".` }) },
      always: 'done',
    },
    saving: {
      invoke: {
        src: 'saveZone',
        input: ({ context }) => ({ person: userMsg(context.request).user as string, zone: context.zone as string }),
        onDone: {
          target: 'done',
          actions: { type: 'say', params: ({ context }) => ({ status: 'saved', text: `From now on I read and show your times in ${context.zone as string} (it is ${localTime(context.zone as string, context.now)} there).` }) },
        },
        onError: { target: 'done', actions: { type: 'say', params: { status: 'not-saved', text: 'I could not save your time zone; times stay as they were. Please try again.' } } },
      },
    },
    done: { type: 'final' },
  },
});
