// The Coordinator's own in-flight bookings (OACoP §3.4 optimistic locking, seen from the one
// initiator): between choosing a slot and the participants' answers to ConfirmCollaboration,
// the slot is held for that thread, so concurrent meetings the Coordinator negotiates do not all
// pick the same earliest slot and collide (OACOP_CONFLICT stays for changes made elsewhere).
// Check-and-set is synchronous: one Node process, no interleaving. Holds expire after ttlMs.
import type { Window } from './slots.js';

interface Hold {
  thread: string;
  s: number;
  e: number;
  until: number;
}

export class Holds {
  private readonly byParty = new Map<string, Hold[]>();

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  private live(party: string): Hold[] {
    const t = this.now();
    const list = (this.byParty.get(party) ?? []).filter((h) => h.until > t);
    if (list.length) this.byParty.set(party, list);
    else this.byParty.delete(party);
    return list;
  }

  /** What other threads hold, per party (padding: e.g. a room's cleaning gap, in minutes). */
  held(parties: readonly string[], exceptThread: string, padMin: Readonly<Record<string, number>> = {}): Record<string, Window[]> {
    const out: Record<string, Window[]> = {};
    for (const p of parties) {
      const pad = (padMin[p] ?? 0) * 60000;
      const hs = this.live(p).filter((h) => h.thread !== exceptThread);
      if (hs.length) out[p] = hs.map((h) => ({ start: new Date(h.s - pad).toISOString(), end: new Date(h.e + pad).toISOString() }));
    }
    return out;
  }

  /** Holds `slot` for `thread` on every party unless another thread holds an overlapping time. */
  reserve(thread: string, parties: readonly string[], slot: Window, padMin: Readonly<Record<string, number>> = {}): boolean {
    const s = Date.parse(slot.start);
    const e = Date.parse(slot.end);
    for (const p of parties) {
      const pad = (padMin[p] ?? 0) * 60000;
      if (this.live(p).some((h) => h.thread !== thread && h.s - pad < e && h.e + pad > s)) return false;
    }
    this.release(thread);
    const until = this.now() + this.ttlMs;
    for (const p of parties) this.byParty.set(p, [...this.live(p), { thread, s, e, until }]);
    return true;
  }

  release(thread: string): void {
    for (const [p, list] of this.byParty) {
      const rest = list.filter((h) => h.thread !== thread);
      if (rest.length) this.byParty.set(p, rest);
      else this.byParty.delete(p);
    }
  }
}
