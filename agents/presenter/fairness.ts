// Fairness at the Presenter (issue "Close the perimeter" §6): one person's flood must not slow
// anyone else down. Three bounds per person and round-robin between people:
// - a token bucket (PARLEY_CHAT_RATE_PER_S, PARLEY_CHAT_BURST): lines beyond it are set aside;
// - at most PARLEY_CHAT_IN_FLIGHT questions of one person at the Coordinator at once, the rest
//   waiting in that person's queue (at most PARLEY_CHAT_QUEUE lines; beyond it: set aside);
// - at most PARLEY_CHAT_IN_FLIGHT_TOTAL questions at once for everyone, started round-robin over
//   the people who have lines waiting, so a long queue never holds up someone else's first line.
// A line set aside is never dropped silently: the person is told plainly to slow down (once per
// flood, then at most every `noticeEveryMs` with the running count) and which lines to send again.
// Pure: the clock and the effects are injected (unit-tested with a fake clock).

export interface FairnessOptions {
  ratePerS: number;
  burst: number;
  inFlightPerPerson: number;
  inFlightTotal: number;
  queuePerPerson: number;
  /** The slow-down notice is repeated at most this often during one flood. */
  noticeEveryMs: number;
  /** The first notice waits this long, so that it can say how much of the flood was set aside. */
  noticeDelayMs: number;
  now(): number;
  /** Runs `fn` after `ms` (setTimeout; a fake in unit tests). */
  later(ms: number, fn: () => void): void;
}

/** A line admitted: `start` runs it when its turn comes; it calls `done` once the question ended. */
export type Job = (done: () => void) => void;

export type Admission = 'started' | 'queued' | 'set-aside';

interface Person {
  tokens: number;
  refilledAt: number;
  inFlight: number;
  queue: Job[];
  /** Lines set aside in the current flood, and when the person was last told. */
  setAside: number;
  toldAt: number | undefined;
}

export class FairGate {
  private readonly people = new Map<string, Person>();
  /** People with lines waiting, longest waiting first. */
  private readonly ready: string[] = [];
  private inFlight = 0;

  constructor(private readonly opts: FairnessOptions, private readonly notice: (person: string, setAside: number) => void) {}

  /** Admits one line of `person`; `job` starts now, later (queued) or never (set aside, person told). */
  admit(person: string, job: Job): Admission {
    const p = this.person(person);
    this.refill(p);
    // A line sent when nothing of this person's is under way or waiting costs no token: someone
    // who waits for each answer (a person, or a script asking one thing at a time) holds one slot
    // like anyone else and is never slowed; only lines piling up behind others draw on the bucket.
    const alone = p.inFlight === 0 && p.queue.length === 0;
    if (!alone && (p.tokens < 1 || p.queue.length >= this.opts.queuePerPerson)) {
      this.setAside(person, p);
      return 'set-aside';
    }
    if (!alone) p.tokens -= 1;
    p.queue.push(job);
    if (p.queue.length === 1) this.ready.push(person);
    this.pump();
    return p.queue.includes(job) ? 'queued' : 'started';
  }

  /** Questions under way for `person` (or for everyone). */
  running(person?: string): number {
    return person === undefined ? this.inFlight : (this.people.get(person)?.inFlight ?? 0);
  }

  waiting(person: string): number {
    return this.people.get(person)?.queue.length ?? 0;
  }

  private person(id: string): Person {
    let p = this.people.get(id);
    if (!p) {
      p = { tokens: this.opts.burst, refilledAt: this.opts.now(), inFlight: 0, queue: [], setAside: 0, toldAt: undefined };
      this.people.set(id, p);
    }
    return p;
  }

  private refill(p: Person): void {
    const now = this.opts.now();
    p.tokens = Math.min(this.opts.burst, p.tokens + ((now - p.refilledAt) / 1000) * this.opts.ratePerS);
    p.refilledAt = now;
  }

  private setAside(id: string, p: Person): void {
    p.setAside += 1;
    const now = this.opts.now();
    if (p.toldAt !== undefined && now - p.toldAt < this.opts.noticeEveryMs) return;
    // Told once now-ish (with the count after a moment: a flood arrives in one go), then again
    // at most every noticeEveryMs while it goes on.
    p.toldAt = now;
    this.opts.later(this.opts.noticeDelayMs, () => this.notice(id, p.setAside));
  }

  /**
   * Starts waiting lines while there is room, each time for the waiting person with the fewest
   * questions under way (ties: who has waited longest), so a backlog never goes before someone
   * else's first line.
   */
  private pump(): void {
    while (this.inFlight < this.opts.inFlightTotal) {
      let pick = -1;
      for (let i = 0; i < this.ready.length; i++) {
        const p = this.people.get(this.ready[i] as string) as Person;
        if (p.inFlight >= this.opts.inFlightPerPerson) continue;
        if (pick < 0 || p.inFlight < (this.people.get(this.ready[pick] as string) as Person).inFlight) pick = i;
      }
      if (pick < 0) return;
      const id = this.ready.splice(pick, 1)[0] as string;
      const p = this.people.get(id) as Person;
      const job = p.queue.shift() as Job;
      if (p.queue.length > 0) this.ready.push(id);
      p.inFlight += 1;
      this.inFlight += 1;
      let finished = false;
      job(() => {
        if (finished) return;
        finished = true;
        p.inFlight -= 1;
        this.inFlight -= 1;
        this.forgetIfIdle(id, p);
        this.pump();
      });
    }
  }

  /**
   * A person with nothing under way or waiting, a full bucket and no recent notice is forgotten
   * (bounded memory); their next flood starts a new count.
   */
  private forgetIfIdle(id: string, p: Person): void {
    if (p.inFlight > 0 || p.queue.length > 0) return;
    this.refill(p);
    const quiet = p.toldAt === undefined || this.opts.now() - p.toldAt >= this.opts.noticeEveryMs;
    if (p.tokens >= this.opts.burst && quiet) this.people.delete(id);
  }
}
