// One DF lease for the many virtual agents of a host process (issue 14 §3). Each agent still
// registers itself (its own REGISTER, signed by its own DID and checked against its enrolment),
// naming the group's random id in profile.lease_group; after that the host sends one HEARTBEAT per
// interval, from one registered member, and the DF (agents/registry/directory.ts heartbeat)
// renews every live member of the group with it. 10,000 calendars at the default 15 s lease were
// 2,000 signed HEARTBEATs a second to the Registry; grouped they are one every 5 s.
// Semantics kept: a host that dies sends no more HEARTBEATs, so all its agents leave the
// directory within one lease; a member's entry that expired is never brought back by the group
// (the DF renews only live ones); when the member that heartbeats is answered NOT_REGISTERED (the
// Registry lost its database, or the host stalled past the lease), every other member is told LOST
// and registers again through the host's RegistrationGate.
import { randomBytes } from 'node:crypto';

interface Member {
  /** Send an event to the member's registration machine. */
  send: (event: { type: 'BEAT' } | { type: 'LOST' }) => void;
  registered: boolean;
}

export class LeaseGroup {
  /** The group's id: a secret of this host (the DF never lists it), 128 random bits. */
  readonly id = randomBytes(16).toString('base64url');
  private readonly members = new Map<string, Member>();
  /** Members told LOST: their own re-registration is not news to the others. */
  private readonly told = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private leaseMs: number | undefined;
  private closed = false;
  /** HEARTBEATs sent and LOST rounds (tests, logs). */
  beats = 0;
  losses = 0;

  constructor(readonly heartbeatMs: number, private readonly timers: { set: typeof setTimeout; clear: typeof clearTimeout } = { set: setTimeout, clear: clearTimeout }) {}

  get size(): number {
    return this.members.size;
  }

  join(key: string, send: Member['send']): void {
    this.members.set(key, { send, registered: false });
  }

  leave(key: string): void {
    this.members.delete(key);
    this.told.delete(key);
  }

  /** The member's REGISTER was accepted; the DF's lease bounds the interval (half of it at most). */
  registered(key: string, leaseMs: number): void {
    const m = this.members.get(key);
    if (!m) return;
    m.registered = true;
    this.told.delete(key);
    this.leaseMs = leaseMs;
    this.schedule();
  }

  /**
   * The member went back to register (queued). When nobody told it to, the DF answered its
   * HEARTBEAT NOT_REGISTERED: the group's lease is gone, and every other registered member's too.
   */
  unregistered(key: string): void {
    const m = this.members.get(key);
    if (!m?.registered) return;
    m.registered = false;
    if (this.told.has(key)) return;
    this.losses += 1;
    for (const [k, other] of this.members) {
      if (k === key || !other.registered) continue;
      other.registered = false;
      this.told.add(k);
      other.send({ type: 'LOST' });
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  private interval(): number {
    return this.leaseMs ? Math.min(this.heartbeatMs, Math.max(1, Math.floor(this.leaseMs / 2))) : this.heartbeatMs;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.beat();
      this.schedule();
    }, this.interval());
    this.timer.unref?.();
  }

  /** One HEARTBEAT, from the first registered member (it renews them all). */
  private beat(): void {
    for (const m of this.members.values()) {
      if (!m.registered) continue;
      this.beats += 1;
      m.send({ type: 'BEAT' });
      return;
    }
  }
}
