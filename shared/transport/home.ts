// Back to the home node (issue #14 §1, docs/cluster.md "Back home"): an agent that failed over
// to another node of the cluster moves back to its own node (the first endpoint, the one its JID
// hashes to) once that node accepts connections again, at a quiet moment.
//
// The move is a broken socket, not a logout: the transport drops its TCP connection and
// reconnects to the home node with XEP-0198 <resume/>. ejabberd 23.01 resumes across nodes while
// the old node runs (mod_stream_mgmt:inherit_session_state looks the session up in the
// cluster-wide session table and takes the old c2s process's state, its unacknowledged queue
// included, with an Erlang call that crosses the distribution), so what either side had not yet
// acknowledged is delivered after the move; if resumption fails the usual failover path applies
// (a new session, our unacknowledged stanzas sent again). Quiet means nothing queued on our side,
// nothing unacknowledged by the server, no inbound stanza waiting, and no traffic for `quietMs`.
// Each agent checks on its own random phase, so a fleet does not move all at once. A move that
// fails (the home node refuses the login) falls back to the failover path: the next node.
// A XEP-0114 component has no resumption: it opens a second connection to its home node before
// it closes the old one (returnHome below, component-move.ts), so it needs no quiet moment to start.
import { portOpen } from '../ejabberd/index.js';
import type { Logger } from '../log/index.js';
import type { ComponentMove, MovableConnection } from './component-move.js';
import type { Endpoints } from './endpoints.js';

export interface HomeWatch {
  endpoints: Endpoints;
  /** Check period; each check comes after a random 0.5–1.5 × this. */
  everyMs: number;
  /** Traffic-free time needed before a move. */
  quietMs: number;
  /** Online, nothing queued or unacknowledged either way, and when the last stanza passed. */
  state(): { online: boolean; settled: boolean; lastTrafficAt: number };
  /** Drops the connection: the reconnect goes to endpoints.current's successor (aimed home). */
  move(): void;
}

export class HomeReturn {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The previous check found the home node accepting connections. */
  private seen = false;

  constructor(private readonly w: HomeWatch) {}

  start(): void {
    if (this.w.endpoints.size < 2 || this.w.everyMs <= 0) return;
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.w.everyMs * (0.5 + Math.random()));
    this.timer.unref();
  }

  /** One check; true when it moved. */
  async check(): Promise<boolean> {
    const { endpoints } = this.w;
    if (endpoints.atHome) return false;
    const s = this.w.state();
    if (!s.online || !s.settled || Date.now() - s.lastTrafficAt < this.w.quietMs) return false;
    const since = s.lastTrafficAt;
    const home = new URL(endpoints.home);
    // Open on two checks in a row: a node that has just started accepts connections before it
    // has joined the cluster (join_cluster then restarts it), and a login there fails.
    const seenBefore = this.seen;
    this.seen = await portOpen(Number(home.port), home.hostname, 500);
    if (!this.seen || !seenBefore) return false;
    const again = this.w.state(); // the probe took a moment: still quiet?
    if (this.stopped || !again.online || !again.settled || again.lastTrafficAt !== since) return false;
    this.seen = false;
    endpoints.aimHome();
    this.w.move();
    return true;
  }
}

export interface ReturnHomeOptions {
  endpoints: Endpoints;
  /** PARLEY_RETURN_HOME_MS; 0: never. */
  everyMs: number;
  logger: Logger;
  online(): boolean;
  /** Nothing queued or unacknowledged either way (a client's move). */
  settled(): boolean;
  lastTrafficAt(): number;
  /** A client's move: the reconnect goes home and resumes there. */
  dropSocket(): void;
  /** A component's move (XEP-0114 has no resumption): make-before-break. */
  mover?: ComponentMove<MovableConnection> | undefined;
}

/** The return home of a transport: a client drops its socket and resumes; a component opens a second connection first. */
export function returnHome(o: ReturnHomeOptions): HomeReturn {
  const { mover, endpoints, logger } = o;
  if (mover) {
    return new HomeReturn({
      endpoints, everyMs: o.everyMs,
      // Opening the second connection needs no quiet moment; the old one is closed at one (component-move.ts).
      quietMs: 0,
      state: () => ({ online: o.online(), settled: !mover.moving, lastTrafficAt: 0 }),
      move: () => {
        logger.info({ service: endpoints.home }, 'home node back: opening a second component connection there (make-before-break)');
        void mover.to(endpoints.home).then((r) => {
          if (!r.moved) endpoints.cancelAim();
        });
      },
    });
  }
  return new HomeReturn({
    endpoints, everyMs: o.everyMs, quietMs: o.everyMs / 4,
    state: () => ({ online: o.online(), settled: o.settled(), lastTrafficAt: o.lastTrafficAt() }),
    move: () => {
      logger.info({ service: endpoints.home }, 'home node back: moving there (XEP-0198 resumption)');
      o.dropSocket();
    },
  });
}
