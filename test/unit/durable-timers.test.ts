// Delayed events of durable exchanges without xstate internals (issue 10 §2): the router tracks
// them through xstate's public inspect API (shared/runtime/delayed-events.ts), persists them with
// absolute deadlines, re-arms them itself at a restore and delivers them with actor.send; every
// delay runs on the exchange's ExchangeClock (shared/runtime/outage-timers.ts), which pauses,
// resumes and shifts them. Each test attacks one of those: SimulatedClock, rows kept as JSON (as
// SQLite keeps them), a "crash" is a new router over the same rows.
import { expect } from 'chai';
import { type AnyActorRef, type AnyStateMachine, assign, cancel, emit, raise, sendParent, sendTo, setup, SimulatedClock } from 'xstate';
import { silentLogger } from '../../shared/log/index.js';
import { ExchangeClock, type PersistedExchange, Router } from '../../shared/runtime/index.js';

/** A child that times out after 1 s unless told `answer`; the parent waits for it. */
const kid = setup({}).createMachine({
  id: 'kid', initial: 'waiting',
  states: { waiting: { after: { 1000: 'late' }, on: { answer: 'answered' } }, late: { type: 'final' }, answered: { type: 'final' } },
});
const parent = setup({ actors: { kid }, types: { emitted: {} as { type: 'note'; decision: string } } }).createMachine({
  id: 'parent', initial: 'asking',
  states: {
    asking: { invoke: { id: 'kid', src: 'kid', onDone: 'heard' }, on: { abort: 'aborted', answer: { actions: sendTo('kid', { type: 'answer' }) } } },
    heard: { entry: emit({ type: 'note', decision: 'kid-done' }) },
    aborted: {},
  },
});

/** A delayed raise with an id (as the expert flow's offer ttl), counted; `stop` cancels it, `again` sets it anew, `poke` only saves. */
const ticker = setup({ types: { context: {} as { ticks: number } } }).createMachine({
  id: 'ticker', context: { ticks: 0 }, initial: 'running',
  states: {
    running: {
      entry: raise({ type: 'tick' }, { delay: 1000, id: 'tick' }),
      on: {
        tick: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) },
        stop: { actions: cancel('tick') },
        poke: { actions: assign({ ticks: ({ context }) => context.ticks }) },
        again: { actions: raise({ type: 'tick' }, { delay: 1000, id: 'tick' }) },
      },
    },
  },
});

/** A child that pings its parent 1 s after it starts (a delayed sendTo to another actor of the exchange). */
const pinger = setup({}).createMachine({ id: 'pinger', entry: sendParent({ type: 'ping' }, { delay: 1000, id: 'ping' }) });
const pinged = setup({ actors: { pinger } }).createMachine({
  id: 'pinged', initial: 'waiting',
  states: { waiting: { invoke: { id: 'pinger', src: 'pinger' }, on: { ping: 'pinged' } }, pinged: {} },
});

/** One process: a durable router on a SimulatedClock at `now`, over `rows` (JSON copies, as the store's). */
function proc(now: number, rows = new Map<string, PersistedExchange>(), { durable = true } = {}) {
  const clock = new SimulatedClock();
  clock.set(now);
  const notes: string[] = [];
  const persist = { save: (key: string, rec: PersistedExchange) => void rows.set(key, JSON.parse(JSON.stringify(rec)) as PersistedExchange), remove: (key: string) => void rows.delete(key) };
  const router = new Router({ logger: silentLogger(), clock, ...(durable ? { persist } : {}), send: () => undefined, note: (_c, d) => notes.push(d), crashed: () => undefined });
  const restore = (machine: AnyStateMachine) => [...rows.values()].map((rec) => router.restore(rec, machine) as AnyActorRef);
  return { clock, rows, notes, router, restore, timers: () => [...rows.values()].flatMap((r) => r.timers) };
}
const crash = (a: { rows: Map<string, PersistedExchange> }, now: number) => proc(now, new Map(a.rows));
const ticks = (actor: AnyActorRef | undefined) => (actor?.getSnapshot() as { context: { ticks: number } }).context.ticks;

describe('Durability [timers] delayed events persisted and re-armed through public xstate API', () => {
  it("a child actor's timer survives persist and restore and fires on the child for the time left", () => {
    const a = proc(10_000);
    a.router.start('x', parent, {});
    expect(a.timers()).to.deep.equal([{ id: 'xstate.after.1000.kid.waiting', event: { type: 'xstate.after.1000.kid.waiting' }, deadline: 11_000, actor: 'kid' }]);
    a.clock.increment(400);

    const b = crash(a, 10_700); // 300 ms of the 1 s left
    const [actor] = b.restore(parent);
    b.clock.increment(299);
    expect(actor?.getSnapshot().value).to.equal('asking');
    b.clock.increment(1);
    expect(actor?.getSnapshot().value).to.equal('heard');
    expect(b.notes).to.deep.equal(['kid-done']);
    expect(b.timers()).to.deep.equal([]);
  });

  it('a restored child timer does not fire once the parent stopped the child (and is no longer persisted)', () => {
    const a = proc(0);
    a.router.start('x', parent, {});
    const b = crash(a, 100);
    const [actor] = b.restore(parent);
    actor?.send({ type: 'abort' });
    expect(b.timers()).to.deep.equal([]);
    b.clock.increment(5000);
    expect(actor?.getSnapshot().value).to.equal('aborted');
    expect(b.notes).to.deep.equal([]);
    // Restored by a router that saves nothing (no save to forget it at): the re-armed timer finds its child gone.
    const c = proc(100, new Map(a.rows), { durable: false });
    const [p] = c.restore(parent);
    p?.send({ type: 'abort' });
    c.clock.increment(5000);
    expect(p?.getSnapshot().value).to.equal('aborted');
  });

  it('a re-armed timer set anew under the same id (no cancel) is replaced: it fires once', () => {
    const a = proc(0);
    a.router.start('x', ticker, {});
    const b = crash(a, 500);
    const [restored] = b.restore(ticker);
    restored?.send({ type: 'again' });
    expect(b.timers().map((t) => t.deadline)).to.deep.equal([1500]);
    expect(b.router.extendTimers(1)).to.equal(1); // the replaced one is no longer on the clock
    b.clock.increment(10_000);
    expect(ticks(restored)).to.equal(1);
  });

  it('a timer cancelled before the crash is not persisted and does not fire after the restore', () => {
    const a = proc(0);
    const actor = a.router.start('x', ticker, {});
    expect(a.timers().map((t) => t.id)).to.deep.equal(['tick']);
    actor.send({ type: 'stop' });
    expect(a.timers()).to.deep.equal([]);

    const b = crash(a, 500);
    const [restored] = b.restore(ticker);
    b.clock.increment(10_000);
    expect(ticks(restored)).to.equal(0);
  });

  it('a re-armed timer cancelled after the restore does not fire (xstate.cancel of its id from its actor)', () => {
    const a = proc(0);
    a.router.start('x', ticker, {});
    const b = crash(a, 500);
    const [restored] = b.restore(ticker);
    restored?.send({ type: 'stop' });
    expect(b.timers()).to.deep.equal([]);
    b.clock.increment(10_000);
    expect(ticks(restored)).to.equal(0);
    // The child's after-timer too: its state exited (answer), so the restored one is cancelled.
    const c = proc(0);
    c.router.start('y', parent, {});
    const d = crash(c, 100);
    const [p] = d.restore(parent);
    p?.send({ type: 'answer' });
    d.clock.increment(5000);
    expect(d.notes).to.deep.equal(['kid-done']); // once, from the answer, not again from the timer
  });

  it('an overdue timer fires once at the restore, and not again after a second crash', () => {
    const a = proc(0);
    a.router.start('x', ticker, {});
    const b = crash(a, 60_000); // down far past the deadline
    const [restored] = b.restore(ticker);
    b.clock.increment(0);
    expect(ticks(restored)).to.equal(1);
    b.clock.increment(10_000);
    expect(ticks(restored)).to.equal(1);
    restored?.send({ type: 'poke' }); // saved: the fired timer must be gone from the row
    expect(b.timers()).to.deep.equal([]);
    const c = crash(b, 70_000);
    const [again] = c.restore(ticker);
    c.clock.increment(10_000);
    expect(ticks(again)).to.equal(1);
  });

  it('a timer xstate fired before the crash leaves the row (matched by its event object): no second firing', () => {
    const a = proc(0);
    const actor = a.router.start('x', ticker, {});
    a.clock.increment(1000);
    expect(ticks(actor)).to.equal(1);
    expect(a.timers()).to.deep.equal([]);
    const b = crash(a, 2000);
    const [restored] = b.restore(ticker);
    b.clock.increment(10_000);
    expect(ticks(restored)).to.equal(1);
  });

  it('pause/resume keeps the time left: xstate-armed, re-armed and set-while-paused timers; a crash while paused keeps it too', () => {
    const a = proc(0);
    const actor = a.router.start('x', ticker, {});
    a.clock.increment(300);
    expect(a.router.pauseTimers()).to.equal(1);
    a.clock.increment(5000);
    expect(ticks(actor)).to.equal(0);
    actor.send({ type: 'poke' }); // saved while paused: 700 ms left, counted from now
    expect(a.timers().map((t) => t.deadline)).to.deep.equal([5300 + 700]);
    expect(a.router.resumeTimers()).to.equal(1);
    a.clock.increment(699);
    expect(ticks(actor)).to.equal(0);
    a.clock.increment(1);
    expect(ticks(actor)).to.equal(1);

    // Re-armed at a restore, then paused: the router's own timer waits like xstate's.
    const b = proc(0);
    b.router.start('y', parent, {});
    const c = crash(b, 200);
    const [p] = c.restore(parent);
    expect(c.router.pauseTimers()).to.equal(1);
    c.clock.increment(3000);
    expect(p?.getSnapshot().value).to.equal('asking');
    c.router.resumeTimers();
    c.clock.increment(799);
    expect(p?.getSnapshot().value).to.equal('asking');
    c.clock.increment(1);
    expect(p?.getSnapshot().value).to.equal('heard');

    // Set while paused (the exchange moved on during the outage): it waits for the resume too.
    // A router that persists nothing (no inspector) pauses the same way: it is the clock's doing.
    const d = proc(0, new Map(), { durable: false });
    const t = d.router.start('z', ticker, {});
    d.router.pauseTimers();
    t.send({ type: 'stop' });
    t.send({ type: 'again' });
    d.clock.increment(5000);
    expect(ticks(t)).to.equal(0);
    expect(d.router.resumeTimers()).to.equal(1);
    d.clock.increment(999);
    expect(ticks(t)).to.equal(0);
    d.clock.increment(1);
    expect(ticks(t)).to.equal(1);
  });

  it('shift moves every deadline, in the clock and in the row', () => {
    const a = proc(0);
    const actor = a.router.start('x', ticker, {});
    a.clock.increment(500);
    expect(a.router.extendTimers(2000)).to.equal(1);
    actor.send({ type: 'poke' });
    expect(a.timers().map((t) => t.deadline)).to.deep.equal([3000]);
    a.clock.increment(2499);
    expect(ticks(actor)).to.equal(0);
    a.clock.increment(1);
    expect(ticks(actor)).to.equal(1);

    // A re-armed timer moved by the downtime (restoreExchanges does that after a crash).
    const b = proc(0);
    b.router.start('y', ticker, {});
    const c = crash(b, 400);
    const [restored] = c.restore(ticker);
    expect(c.router.extendTimers(1000)).to.equal(1);
    c.clock.increment(1599);
    expect(ticks(restored)).to.equal(0);
    c.clock.increment(1);
    expect(ticks(restored)).to.equal(1);
  });

  // The crash-matrix row "coordinator between ACCEPT and RESULT" restarts an agent whose exchange
  // clocks lag the base clock (the downtime shift): a deadline saved after that must be written on
  // the base clock (not the exchange's own time), or a second crash would restore it early.
  it('a restored, shifted timer is saved at its base-clock deadline: a second crash fires it on time, once', () => {
    const a = proc(0);
    a.router.start('x', ticker, {}); // deadline 1000
    const b = crash(a, 400);
    const [first] = b.restore(ticker);
    b.router.extendTimers(1000); // down 1 s: due at 2000
    first?.send({ type: 'poke' }); // a save on the lagging clock
    expect(b.timers().map((t) => t.deadline)).to.deep.equal([2000]);
    b.clock.increment(1100); // 1500: not yet due

    const c = crash(b, 1500);
    const [second] = c.restore(ticker);
    c.clock.increment(499);
    expect(ticks(second)).to.equal(0);
    c.clock.increment(1);
    expect(ticks(second)).to.equal(1);
    c.clock.increment(5000);
    expect(ticks(second)).to.equal(1);
    expect(c.timers()).to.deep.equal([]);
  });

  it("a child's delayed sendTo to its parent is persisted with its target and delivered to it after the restore", () => {
    const a = proc(0);
    a.router.start('x', pinged, {});
    expect(a.timers()).to.deep.equal([{ id: 'ping', event: { type: 'ping' }, deadline: 1000, actor: 'pinger', to: '' }]);
    const b = crash(a, 600);
    const [actor] = b.restore(pinged);
    b.clock.increment(399);
    expect(actor?.getSnapshot().value).to.equal('waiting');
    b.clock.increment(1);
    expect(actor?.getSnapshot().value).to.equal('pinged');
  });

  it('restores rows stored before this change (timers without `to`) the same way', () => {
    const a = proc(0);
    a.router.start('x', ticker, {});
    const rows = new Map([...a.rows].map(([k, r]) => [k, { ...r, timers: [{ id: 'tick', event: { type: 'tick' }, deadline: 1000 }] }]));
    const b = proc(900, rows);
    const [restored] = b.restore(ticker);
    b.clock.increment(100);
    expect(ticks(restored)).to.equal(1);
  });
});

describe('ExchangeClock [outages] one exchange\'s time over the base clock', () => {
  it('pauses once, shifts while paused, resumes with the time left, and fires nothing after dispose', () => {
    const base = new SimulatedClock();
    const clock = new ExchangeClock(base, () => base.now());
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('a'), 1000);
    const b = clock.setTimeout(() => fired.push('b'), 2000);
    base.increment(400);
    expect(clock.pause()).to.equal(2);
    expect(clock.pause()).to.equal(0); // a second pause does not restart the count
    base.increment(10_000);
    expect(clock.shift(100)).to.equal(2);
    expect(clock.toBase(clock.now() + 600)).to.equal(base.now() + 600);
    expect(clock.resume()).to.equal(2);
    base.increment(699);
    expect(fired).to.deep.equal([]);
    base.increment(1);
    expect(fired).to.deep.equal(['a']);
    clock.clearTimeout(b);
    const c = clock.setTimeout(() => fired.push('c'), 10);
    expect(c).to.be.a('number');
    clock.dispose();
    base.increment(10_000);
    expect(fired).to.deep.equal(['a']);
    expect(clock.pending).to.equal(0);
  });
});
