// "I can't make the meeting on monday", "sorry, I won't be able to join tomorrow's meeting because
// I'm ill": someone invited to a meeting another person booked tells its organizer, who alone may
// move or cancel it (route.ts). Their calendar accepted the invitation when they were free, so
// the meeting stays in it; the organizer is told (NOTIFY_USER) with the lines that move or cancel
// it. Before, "decline the meeting with alice" was read as a task answer (task-answer-parse.ts).
import { DateTime } from 'luxon';
import { emit, setup } from 'xstate';
import type { ExchangeEmitted } from '../../../shared/runtime/index.js';
import { type CoordinatorInput, presenterReply } from '../envelopes.js';
import type { MeetingRef } from './meeting-ref.js';
import { notifyUser } from './oacop.js';
import type { MeetingRecord } from './store.js';
import { nameOf, when } from './texts.js';

export interface CantMake extends MeetingRef {
  kind: 'cant-make';
  /** "… because I'm ill": passed on to the organizer, at most 200 characters. */
  reason?: string;
}

const CANT = /^\s*(?:sorry[,!\s]*|unfortunately[,\s]*)?i\s+(?:can(?:'|no)?t|cannot|won'?t(?:\s+be\s+able\s+to)?|am\s+not\s+able\s+to|'m\s+not\s+able\s+to)\s+(?:make(?:\s+it\s+to)?|attend|come\s+to|join|be\s+at|go\s+to)\s+(.*?)\s*[.!]*\s*$/i;
const NOUN = /\b(?:meeting|appointment|call)s?\b/i;

/** The line as a "can't make it", with what it says of the meeting; `meetingRef` reads the with-clause (parse.ts). */
export function parseCantMake(text: string, withOf: (words: string) => { with?: string[] } & MeetingRef): CantMake | undefined {
  const m = CANT.exec(text);
  if (!m || !NOUN.test(m[1] as string)) return undefined;
  const [said, reason] = (m[1] as string).split(/\s+(?:because(?:\s+of)?|as|since|due\s+to|-|—)\s+/i, 2) as [string, string?];
  const ref = withOf(said.replace(NOUN, ' '));
  return { kind: 'cant-make', ...ref, ...(reason?.trim() ? { reason: reason.trim().slice(0, 200) } : {}) };
}

export interface CantMakeInput extends CoordinatorInput {
  meeting: MeetingRecord;
  person: string;
  reason?: string;
  zone: string;
  organizerZone: string;
}

export const cantMakeMachine = setup({
  types: {} as { input: CantMakeInput; context: CantMakeInput; emitted: ExchangeEmitted },
}).createMachine({
  id: 'coordinator-cant-make',
  context: ({ input }) => input,
  initial: 'done',
  states: {
    done: {
      type: 'final',
      entry: [
        emit(({ context: c }) => {
          // The day as a date ("on 11 Dec"), so the line names this meeting even with others with them.
          const about = `with ${nameOf(c.person)} on ${DateTime.fromISO(c.meeting.slot.start).setZone(c.organizerZone).toFormat('d LLL')}`;
          const text = [
            `${nameOf(c.person)} can't make "${c.meeting.title}" (${when(c.meeting.slot, c.organizerZone)})${c.reason ? `: "${c.reason}"` : '.'}`,
            `To move it, say e.g. "move my meeting ${about} to …"; to cancel it, "cancel my meeting ${about}".`,
          ].join('\n');
          return { type: 'send' as const, envelope: notifyUser(c.self, c.meeting.threadId, c.meeting.organizer, text, { kind: 'meeting', status: 'cant-make', threadId: c.meeting.threadId, person: c.person }) };
        }),
        emit(({ context: c }) => ({
          type: 'send' as const,
          envelope: presenterReply(c.request, `I told ${nameOf(c.meeting.organizer)} you can't make "${c.meeting.title}" (${when(c.meeting.slot, c.zone)}). It stays in your calendar until ${nameOf(c.meeting.organizer)} moves or cancels it.`,
            { kind: 'scheduling', status: 'cant-make', threadId: c.meeting.threadId }),
        })),
      ],
    },
  },
});
