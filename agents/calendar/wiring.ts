// What a calendar agent is besides its handlers, shared by the calendar process (main.ts: one
// person) and the calendar host (host.ts: every person as a virtual agent): the person's
// settings re-read when the file changes, the OACoP exchanges (durable: a request's effect and
// answer stored together, store.once), and the DF profile with capability CALENDAR (registered
// through shared/runtime/df-registration.ts).
import fs from 'node:fs';
import { type AnyStateMachine, fromPromise } from 'xstate';
import { calendarConfigFile, readCalendarConfig, type CalendarConfig } from '../../shared/calendar/config.js';
import type { CalendarStore } from '../../shared/calendar/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import type { AgentProfile } from '../../shared/contracts/index.js';
import type { Agent } from '../../shared/runtime/index.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { requestKey } from '../../shared/store/index.js';
import { type CalendarContext, calendarExchangeMachine, type HandleInput } from '../../shared/oacop/index.js';
import { CALENDAR_KINDS, type CalendarKind, handleOacop } from './service.js';

/** The person's settings, re-read when the file changes (npm run calendar -- trust/hours on a live agent). */
export function watchedConfig(config: ParleyConfig, person: string): () => CalendarConfig {
  let cached: { mtimeMs: number; value: CalendarConfig } | null = null;
  return () => {
    const mtimeMs = fs.statSync(calendarConfigFile(config, person)).mtimeMs;
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, value: readCalendarConfig(config, person) };
    return cached.value;
  };
}

/** A calendar: its handlers' context and its store (the host opens stores lazily, see StorePool). */
export interface Served {
  ctx: CalendarContext;
  store(): CalendarStore;
}

/**
 * The exchange machine with its handler: `calendarOf(receiver)` finds the calendar a request is
 * for. One machine serves every calendar of a host (the pipeline let the request in only when
 * its receiver is the agent's own name, pipeline.ts), so ten thousand calendars do not cost ten
 * thousand machine copies. A re-run after a crash answers from the store (store.once).
 */
export function calendarMachine(calendarOf: (receiver: string) => Served | undefined): AnyStateMachine {
  return calendarExchangeMachine.provide({
    actors: {
      handle: fromPromise<ReturnType<typeof handleOacop>, HandleInput>(async ({ input }) => {
        const cal = calendarOf(input.request.receiver);
        if (!cal) throw new Error(`no calendar ${input.request.receiver} here`);
        return cal.store().once(requestKey(input.request, input.from.jid), () => handleOacop(cal.ctx, input.kind as CalendarKind, input.request, input.from));
      }),
    },
  });
}

/** Opens an exchange for every OACoP kind a calendar answers. */
export function serveOacop(agent: Agent, machine: AnyStateMachine, handleMs: number): void {
  for (const kind of CALENDAR_KINDS) {
    agent.router.on(kind, (request, from) => ({ machine, input: { request, from, self: agent.name, kind, handleMs } }));
  }
}

/** The DF profile of `person`'s calendar: topics name the person, so the Coordinator finds it (docs/oacop.md). */
export function calendarProfile(agent: Agent, person: string, domain: string, version = packageVersion()): AgentProfile {
  return {
    jid: agent.self.jid, name: agent.name, version, capabilities: ['CALENDAR'],
    // The DF binds our JID to the did:key that signs our envelopes (docs/runtime.md §5).
    ...(agent.signing?.did ? { did: agent.signing.did } : {}),
    description: `Calendar of ${person}: answers OACoP ProposeCollaboration, ConfirmCollaboration, CancelCollaboration, AssignTask`,
    topics: [person, `${person}@${domain}`],
  };
}
