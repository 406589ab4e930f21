// The Coordinator process (seed contract §3): every USER_MSG from the Presenter opens one
// exchange actor; all operational traffic (DF, specialists, KB, calendars, rooms) goes through
// here, including a specialist's delegation (DELEGATE_TASK, QUERY_AGENTS, BROADCAST_EVENT).
// OACoP (docs/oacop.md): meetings and tasks it initiated live in data/scheduling.sqlite. A person's
// `session …` lines go on to the sessions agent (session-forward.ts).
import { fromPromise } from 'xstate';
import { loadTunables, envFlag, envNumber, paths } from '../../shared/config/index.js';
import { createAgent, jidOfName, restoreExchanges, startUp, warmUp } from '../../shared/runtime/index.js';
import { announce, controlRequest } from '../../shared/supervisor/ipc.js';
import { queryAgentsMachine } from './agents-ops.js';
import { busyRetryFrom } from './busy-wait.js';
import { CandidateCache, WinnerMemory } from './candidate-cache.js';
import { dfChangedMachine } from './df-changed.js';
import { delegateFactory, directoryFactory, userMsgFactory } from './factory.js';
import { KbHealth } from './kb-health.js';
import { expertMachine, type ScaleInput, type ScaleOutput } from './expert/machine.js';
import { cancelMachine } from './scheduling/cancel.js';
import { MeetingLocks } from './scheduling/meeting-locks.js';
import { moveMachine } from './scheduling/move-machine.js';
import { Holds } from './scheduling/holds.js';
import { type HoldsInput, scheduleMachine } from './scheduling/schedule.js';
import type { Window } from './scheduling/slots.js';
import { type MeetingRecord, SchedulingStore, type TaskRecord } from './scheduling/store.js';
import { assignMachine, taskAnswerMachine, taskUpdateMachine } from './scheduling/tasks.js';
import { zoneMachine } from './scheduling/zone-machine.js';
import { Assignments } from './assignments.js';

// Durable (docs/runtime.md "Durability"): every exchange's snapshot in data/coordinator-exchanges.sqlite.
const { agent, config, logger, store: exchanges, onShutdown } = createAgent({ account: 'coordinator', durable: true });
const tunables = loadTunables(process.env, config.domain);
const { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs } = tunables;
const scaleTimeoutMs = envNumber('PARLEY_SCALE_TIMEOUT_MS');
const sessionsTimeoutMs = envNumber('PARLEY_SESSIONS_TIMEOUT_MS');
const timeouts = { agreeTimeoutMs, resultTimeoutMs, registryTimeoutMs, kbTimeoutMs, scaleTimeoutMs, sessionsTimeoutMs };
// PARLEY_CANDIDATE_CACHE_MS: how long a DF answer serves questions of the same shape (0 = off).
const cacheMs = envNumber('PARLEY_CANDIDATE_CACHE_MS');
const oacopTimeoutMs = envNumber('PARLEY_OACOP_TIMEOUT_MS');
// Agora §3 negotiated flow (docs/acl_contract.md "Negotiated requests").
const agora = {
  mode: tunables.negotiate, cfpTimeoutMs: tunables.cfpTimeoutMs, maxCandidates: tunables.cfpMaxCandidates, acceptMarginMs: tunables.offerMarginMs,
  ...(tunables.agoraMaxCost !== undefined ? { maxCost: tunables.agoraMaxCost } : {}),
};

const store = new SchedulingStore(paths(config).scheduling);
onShutdown(() => store.close());
const saveMeeting = { save: fromPromise(async ({ input }: { input: MeetingRecord }) => store.saveMeeting(input)) };
// Slots of meetings being confirmed right now (holds.ts): kept a minute, past any proposal round.
const holds = new Holds(Math.max(60000, 4 * oacopTimeoutMs));
// One move or cancel at a time per meeting, claimed on disk (a move restored after a crash keeps
// its meeting); a claim never let go lapses after the longest exchange: three OACoP rounds (a
// move that restores) and a margin.
const locks = new MeetingLocks(4 * oacopTimeoutMs + 10_000, Date.now, store);
const scheduleActors = {
  ...saveMeeting,
  holds: fromPromise(async ({ input }: { input: HoldsInput }) => holds.held(input.parties, input.threadId, input.padMin)),
  reserve: fromPromise(async ({ input }: { input: HoldsInput & { slot: Window } }) => holds.reserve(input.threadId, input.parties, input.slot, input.padMin)),
  release: fromPromise(async ({ input }: { input: { threadId: string } }) => holds.release(input.threadId)),
};
const saveTask = { save: fromPromise(async ({ input }: { input: TaskRecord }) => store.saveTask(input)) };
const saveZone = { saveZone: fromPromise(async ({ input }: { input: { person: string; zone: string } }) => store.saveZone(input.person, input.zone)) };

// Scaling is an operator-side action, not an agent message: the supervisor that started us
// listens on a local control socket ($PARLEY_HOME/run/supervisor.sock). No supervisor → the
// person gets NO_CANDIDATE as before. PARLEY_AUTOSCALE=0 turns it off.
const expert = expertMachine.provide({
  actors: {
    scale: fromPromise<ScaleOutput, ScaleInput>(async ({ input }) => {
      const res = await controlRequest(config, 'POST', '/scale', { busy: input.busy });
      if (!res) throw new Error('no supervisor is running for this PARLEY_HOME');
      if (res.status !== 200 && res.status !== 201) throw new Error(`${String(res.body.error)}: ${String(res.body.detail)}`);
      logger.info({ agent: (res.body.agent as { name?: string })?.name, ready_ms: res.body.ready_ms }, 'scaled up');
      return res.body as ScaleOutput;
    }),
  },
});
// Every candidate busy and no scale-up → wait and ask again (PARLEY_BUSY_RETRY_MS; busy-wait.ts).
const busyRetry = busyRetryFrom(process.env, resultTimeoutMs);
const opts = { self: agent.name, domain: config.domain, timeouts, expert, canScale: envFlag('PARLEY_AUTOSCALE'), ...(busyRetry ? { busyRetry } : {}) };

// The KB's sessions (it sends us directed presence): a KB that went away is not waited past (kb-health.ts).
const kbHealth = new KbHealth();
agent.transport.onPresence(kbHealth.watch(jidOfName('KB', config.domain)));
// The DF's answers, reused for cacheMs and forgotten when the Registry says they changed (df-changed.ts).
const candidates = new CandidateCache(cacheMs);
const dfChanged = dfChangedMachine.provide({ actions: { forgetCandidates: () => candidates.clear() } });
agent.router.on('DF_CHANGED', (request) => ({ machine: dfChanged, input: { request } }));
agent.router.on('USER_MSG', userMsgFactory({
  ...opts,
  cache: candidates,
  // PARLEY_WINNER_MEMORY=1 (auto mode): a fresh winning offer is asked directly instead of
  // negotiating every question (off by default: `auto` is documented as one CFP round per question).
  ...(envFlag('PARLEY_WINNER_MEMORY') ? { winners: new WinnerMemory() } : {}),
  kb: kbHealth,
  agora,
  scheduling: {
    oacopTimeoutMs,
    lastMeeting: (organizer) => store.lastMeeting(organizer),
    openTasks: (assignee) => store.openTasks(assignee),
    meetingsAhead: (person, now) => store.meetingsAhead(person, now, config.domain),
    listing: (person) => store.listing(person),
    saveListing: (person, ids) => store.saveListing(person, ids),
    meeting: (threadId) => store.meeting(threadId),
    claim: (threadId) => locks.claim(threadId),
    askedBack: (person) => store.askedBack(person),
    saveAskedBack: (person, asked) => store.saveAskedBack(person, asked),
    tasksOf: (person) => store.openTasksOf(person),
    zones: () => store.zones(),
    machines: {
      schedule: scheduleMachine.provide({ actors: scheduleActors }),
      cancel: cancelMachine.provide({ actors: saveMeeting, actions: { unclaim: ({ context }) => locks.release(context.input.meeting?.threadId ?? '') } }),
      move: moveMachine.provide({ actors: scheduleActors, actions: { unclaim: ({ context }) => locks.release(context.input.meeting.threadId) } }),
      assign: assignMachine.provide({ actors: saveTask }),
      answer: taskAnswerMachine.provide({ actors: saveTask }),
      zone: zoneMachine.provide({ actors: saveZone }),
    },
  },
}));
// A specialist delegates only inside conversations it was given work in (assignments.ts); the
// pipeline refuses the rest. Broadcasts are the Coordinator's own: the role policy lets no other
// agent open BROADCAST_EVENT, so no handler for it here.
const assignments = new Assignments(Math.max(600_000, 4 * resultTimeoutMs));
agent.onSent((envelope, to) => assignments.observe(envelope, to));
agent.assigned = (jid, conversationId) => assignments.allows(jid, conversationId);
agent.router.on('DELEGATE_TASK', delegateFactory(opts));
agent.router.on('QUERY_AGENTS', directoryFactory(opts, queryAgentsMachine));
// A TaskUpdate a calendar opens on its own (oacop-rfc §4.2): the assigner is told.
const taskUpdate = taskUpdateMachine.provide({ actors: saveTask });
agent.router.on('TaskUpdate', (request, from) => {
  const task = store.task(String(request.content.threadId));
  return { machine: taskUpdate, input: { request, from, self: agent.name, ...(task ? { task } : {}) } };
});
// Conversations a killed Coordinator left behind resume before anything new is read.
if (exchanges) restoreExchanges(agent, exchanges);
// Compile the contracts before going online: the first question pays no compile.
warmUp(agent);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  await agent.start();
  announce(logger, { jid: agent.self.jid, ...timeouts, candidateCacheMs: cacheMs, oacopTimeoutMs, agora, busyRetry: busyRetry ?? null }, 'online');
}, logger);
