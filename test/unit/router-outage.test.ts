// An exchange's timers wait out a server outage (issue "Keep every conversation through any single
// crash"): while an agent is cut off from ejabberd nobody can answer it, so when it is back every
// pending timer of its live exchanges moves by the outage (Router.extendTimers, called by Agent).
import { expect } from 'chai';
import { createMachine, SimulatedClock } from 'xstate';
import { silentLogger } from '../../shared/log/index.js';
import { Router } from '../../shared/runtime/router.js';
import { testAgent } from '../support/fake-transport.js';

const waiter = createMachine({ id: 'waiter', initial: 'waiting', states: { waiting: { after: { 1000: 'timedOut' } }, timedOut: { type: 'final' } } });

describe('Router [outage] pending timers move past the time the agent was cut off', () => {
  it('a 1 s timeout with a 3 s outage fires 3 s later than it would have, not before', () => {
    const clock = new SimulatedClock();
    // A durable router (persist): it keeps each timer's deadline on its own clock.
    const persist = { save: () => undefined, remove: () => undefined };
    const router = new Router({ logger: silentLogger(), clock, persist, send: () => undefined, note: () => undefined, crashed: () => undefined });
    const actor = router.start('c-1', waiter, {});
    clock.increment(500);
    expect(router.extendTimers(3000)).to.equal(1);
    clock.increment(600); // 1.1 s after the start: would have fired without the outage
    expect(actor.getSnapshot().value).to.equal('waiting');
    clock.increment(2900);
    expect(actor.getSnapshot().value).to.equal('timedOut');
  });

  it('the agent moves its timers by the outage when the transport comes back', async () => {
    const { agent, transport } = testAgent('coordinator', { signing: undefined });
    await agent.start();
    let moved = 0;
    const real = agent.router.extendTimers.bind(agent.router);
    agent.router.extendTimers = (ms: number) => {
      moved = ms;
      return real(ms);
    };
    transport.setStatus('offline');
    const t0 = Date.now();
    while (Date.now() - t0 < 5) { /* a measurable outage without a timer */ }
    transport.setStatus('online');
    expect(moved).to.be.at.least(5);
  });
});
