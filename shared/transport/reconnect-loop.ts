// The transport's own reconnect loop (xmpp.js's gives up after one failed attempt): back-off that
// grows once per attempt, the next node of a cluster each time, and a deadline per attempt.
import type { Logger } from '../log/index.js';
import type { Endpoints } from './endpoints.js';
import type { XmppEntity } from './entity.js';

/** How long one reconnect attempt may take before it is abandoned and retried. */
export const ATTEMPT_DEADLINE_MS = 10_000;

export interface ReconnectDeps {
  entity(): XmppEntity;
  endpoints: Endpoints;
  logger: Logger;
  stopping(): boolean;
  online(): boolean;
  maxBackoffMs?: number;
}

export class ReconnectLoop {
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private attemptTimer: NodeJS.Timeout | undefined;

  constructor(private readonly d: ReconnectDeps) {}

  /** Online again: the next loss starts the back-off from the beginning. */
  succeeded(): void {
    clearTimeout(this.attemptTimer);
    this.attempt = 0;
  }

  stop(): void {
    clearTimeout(this.attemptTimer);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  schedule(): void {
    // A failed attempt reports twice (the socket's 'disconnect' and the rejected connect): one
    // pending retry is enough, and the back-off must grow once per attempt, not per report.
    if (this.retryTimer !== undefined) return;
    const delay = Math.min(this.d.maxBackoffMs ?? 2000, 50 * 2 ** Math.min(this.attempt, 10));
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.reconnect();
    }, delay);
  }

  private async reconnect(): Promise<void> {
    const entity = this.d.entity();
    if (this.d.stopping() || entity.status === 'online') return;
    // In a cluster every attempt goes to the next node: the one that broke the stream may be dead
    // (kill -9 closes its sockets at once), and a live one lets any node resume the session
    // (XEP-0198: ejabberd finds it through the cluster-wide session table).
    if (this.d.endpoints.size > 1) {
      entity.options.service = this.d.endpoints.next();
      this.d.logger.info({ service: entity.options.service }, 'reconnecting to the next node');
    }
    const { service, domain, lang } = entity.options;
    // A server still starting (a restarted ejabberd accepts TCP before it serves streams) can
    // leave a login half done forever: no error, no 'online'. Give each attempt a deadline.
    clearTimeout(this.attemptTimer);
    this.attemptTimer = setTimeout(() => {
      if (this.d.stopping() || this.d.online()) return;
      this.d.logger.debug({ attempt: this.attempt }, 'reconnect attempt stalled; starting over');
      entity.socket?.destroy();
      this.schedule();
    }, ATTEMPT_DEADLINE_MS);
    this.attemptTimer.unref();
    try {
      await entity.connect(service);
      await entity.open({ domain, lang });
    } catch (err) {
      this.d.logger.debug({ err: (err as Error).message, attempt: this.attempt }, 'reconnect failed');
      this.schedule();
    }
  }
}
