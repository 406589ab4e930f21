// Lines to people sent just before the server went away are sent again once it is back, as the
// agents' envelopes are (shared/runtime/agent.ts resendAtRisk): a stopping ejabberd acknowledges
// stanzas it then drops with the sessions it closes. The crash row "ejabberd stop/start between
// ACCEPT and RESULT" lost up to 48 of 50 answers so: the Presenter had said them all in the
// 300 ms before the stop, and none reached its person. Each line carries its XEP-0359 origin-id
// (main.ts lineId), so a client that had it shows it once; chat states (no id) are not repeated.
import { RESEND_WINDOW_MS, SentLog } from '../../shared/runtime/index.js';
import type { OutboundMessage, Transport } from '../../shared/transport/index.js';

export class LinesAtRisk {
  private readonly recent = new SentLog<{ at: number; msg: OutboundMessage }>();
  private atRisk: OutboundMessage[] = [];

  constructor(private readonly transport: Pick<Transport, 'send' | 'on'>, private readonly now: () => number = Date.now) {
    transport.on('offline', () => {
      // Kept in `recent`: a server that goes away twice in a row (a stop after a brief reconnect)
      // drops the resent copies too, and they are still in the window from their first send.
      this.atRisk = this.recent.since(this.now() - RESEND_WINDOW_MS).map((r) => r.msg);
    });
    transport.on('online', () => {
      const again = this.atRisk;
      this.atRisk = [];
      for (const msg of again) transport.send(msg);
    });
  }

  /** Sends a line; one with an id is kept for RESEND_WINDOW_MS in case the server drops it. */
  send(msg: OutboundMessage): void {
    if (msg.id !== undefined) this.recent.add({ at: this.now(), msg });
    this.transport.send(msg);
  }
}
