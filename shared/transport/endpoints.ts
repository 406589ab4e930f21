// The services a transport may log in to: the nodes of an ejabberd cluster (issue #14 §1,
// docs/cluster.md), first the one to start on. One service is the single node of old.
import { portOpen } from '../ejabberd/index.js';

export class Endpoints {
  private readonly list: string[];
  private at = 0;
  /** Where aimHome() was called from. */
  private aimedFrom: number | undefined;

  /** `services` as xmpp://host:port, in the order to try them. */
  constructor(services: string[]) {
    if (services.length === 0) throw new Error('a transport needs at least one endpoint');
    this.list = services;
  }

  get size(): number {
    return this.list.length;
  }

  get current(): string {
    return this.list[this.at] as string;
  }

  /** The home node: the first endpoint, where this account starts (home.ts moves back to it). */
  get home(): string {
    return this.list[0] as string;
  }

  get atHome(): boolean {
    return this.at === 0;
  }

  /** The next reconnect attempt (next()) goes home. */
  aimHome(): void {
    this.aimedFrom = this.at;
    this.at = this.list.length - 1;
  }

  /** A component's move home failed: it is still connected where it was (component-move.ts). */
  cancelAim(): void {
    if (this.aimedFrom !== undefined) this.at = this.aimedFrom;
    this.aimedFrom = undefined;
  }

  /** A component's connection to the home node is now the one in use (component-move.ts). */
  arrivedHome(): void {
    this.at = 0;
    this.aimedFrom = undefined;
  }

  /** The next node (modulo their number): where a reconnect attempt goes. */
  next(): string {
    this.at = (this.at + 1) % this.list.length;
    return this.current;
  }

  /**
   * The first service, from the current one on, that accepts a TCP connection (a refused
   * connect is cheap on loopback); the current one when none does (the caller's start then
   * fails as it always did). Only asked with several endpoints: xmpp.js cannot be restarted
   * cleanly after a failed start, so the start must pick a live node beforehand.
   */
  async firstReachable(): Promise<string> {
    const from = this.at;
    for (let k = 0; k < this.list.length; k++) {
      this.at = (from + k) % this.list.length;
      const url = new URL(this.current);
      if (await portOpen(Number(url.port), url.hostname, 500)) return this.current;
    }
    this.at = from;
    return this.current;
  }
}
