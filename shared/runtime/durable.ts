// Restart of a durable role (issue #6 "Durability"; docs/runtime.md): before the agent goes online,
// every exchange persisted by the router comes back (snapshot, correlations, timers re-armed
// from their deadlines), and envelopes that may have died in the socket buffer at the crash are
// sent again. Receivers drop copies by (sender, reply_with), so a resend is never a second answer.
import type { AnyActorRef, AnyStateMachine } from 'xstate';
import type { Envelope, ErrorCode } from '../acl/index.js';
import type { ExchangeStore } from '../store/index.js';
import type { Agent } from './agent.js';
import type { PersistedExchange } from './router.js';

export interface RestoreOptions {
  /** The machine for an exchange the role started itself (no factory kind), e.g. the Presenter's question. */
  machineFor?(rec: PersistedExchange): AnyStateMachine | undefined;
  /** Called for each restored actor (e.g. to listen to its non-envelope emits again). */
  onRestored?(actor: AnyActorRef, rec: PersistedExchange): void;
  /** What the requester of an exchange that cannot be resumed is told (default INTERNAL_ERROR; specialists: WORK_LOST, retryable). */
  failCode?: ErrorCode;
}

export interface RestoreReport {
  restored: number;
  /** Exchanges whose machine is gone or changed: their requester got FAILURE INTERNAL_ERROR (or `failCode`). */
  failed: number;
  /** Envelopes sent again (recent sends of live and just-finished exchanges). */
  resent: number;
  /** How far the restored exchanges' timers were moved: the time the agent was down. */
  timersMovedMs?: number;
  ms: number;
}

export function restoreExchanges(agent: Agent, store: ExchangeStore, opts: RestoreOptions = {}): RestoreReport {
  const t0 = Date.now();
  const report: RestoreReport = { restored: 0, failed: 0, resent: 0, ms: 0 };
  const resend = (envs: Envelope[]) => {
    for (const e of envs) agent.send(e);
    report.resent += envs.length;
  };
  // Only after a crash, and only what was sent in the last moments before it: those envelopes may
  // have died in the socket buffer. Answers of exchanges that finished just before the crash first.
  const crashed = !store.takeCleanStop();
  const last = store.lastWrite() ?? 0;
  const recent = (sends: PersistedExchange['recent']) => (crashed ? sends.filter((r) => r.at >= last - store.tombstoneMs).map((r) => r.envelope) : []);
  if (crashed) for (const f of store.recentlyFinished()) resend(f.sends);
  for (const rec of store.exchanges()) {
    let actor: AnyActorRef | undefined;
    try {
      actor = agent.router.restore(rec, opts.machineFor?.(rec));
    } catch (err) {
      agent.log.error({ key: rec.key, err: (err as Error).message }, 'restore failed');
    }
    if (!actor) {
      report.failed += 1;
      store.remove(rec.key);
      if (rec.kind && rec.request) agent.answerError(rec.request, opts.failCode ?? 'INTERNAL_ERROR', 'the conversation could not be resumed after a restart');
      continue;
    }
    report.restored += 1;
    opts.onRestored?.(actor, rec);
    resend(recent(rec.recent));
  }
  // Nobody could answer this agent while it was down: its timers wait that much longer, as after a
  // server outage (Agent 'online'), so a restart does not eat the time a counterparty had to
  // answer (issue 12: "no wait past the RESULT timeout plus the restart"). The last write is at or
  // before the crash, so this errs on the side of waiting a little longer.
  // The ledger's heartbeat (every 5 s) bounds it too, when the last write is older.
  const downSince = Math.max(last, agent.signing?.aliveBeforeStart ?? 0);
  if (crashed && downSince > 0 && report.restored > 0) {
    const down = Date.now() - downSince;
    report.timersMovedMs = agent.router.extendTimers(down) > 0 ? down : 0;
  }
  store.prune();
  report.ms = Date.now() - t0;
  if (report.restored + report.failed + report.resent > 0) agent.log.info(report, 'restored exchanges');
  return report;
}
