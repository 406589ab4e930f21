// An exchange's timers wait out a server outage (issue "Keep every conversation through any single
// crash"): while an agent is cut off from ejabberd nobody can answer it, so when it is back every
// pending timer of its live exchanges stops until it is back (Router.pauseTimers / resumeTimers, called by
// Agent); a restarted durable agent moves its restored timers by its downtime (extendTimers).
import { expect } from 'chai';
import { createMachine, SimulatedClock } from 'xstate';
import { silentLogger } from '../../shared/log/index.js';
import { Router } from '../../shared/runtime/index.js';
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

  it('paused while the server is away: a 1 s timeout paused after 0.5 s for 5 s fires 0.5 s after the resume', () => {
    const clock = new SimulatedClock();
    const persist = { save: () => undefined, remove: () => undefined };
    const router = new Router({ logger: silentLogger(), clock, persist, send: () => undefined, note: () => undefined, crashed: () => undefined });
    const actor = router.start('c-2', waiter, {});
    clock.increment(500);
    expect(router.pauseTimers()).to.equal(1);
    clock.increment(5000); // the outage: the timer would have fired 4.5 s ago
    expect(actor.getSnapshot().value).to.equal('waiting');
    expect(router.resumeTimers()).to.equal(1);
    clock.increment(499);
    expect(actor.getSnapshot().value).to.equal('waiting');
    clock.increment(1);
    expect(actor.getSnapshot().value).to.equal('timedOut');
  });

  it('the agent pauses its timers when the transport goes offline and resumes them when it is back', async () => {
    const { agent, transport } = testAgent('coordinator', { signing: undefined });
    await agent.start();
    const calls: string[] = [];
    const pause = agent.router.pauseTimers.bind(agent.router);
    const resume = agent.router.resumeTimers.bind(agent.router);
    agent.router.pauseTimers = () => (calls.push('pause'), pause());
    agent.router.resumeTimers = () => (calls.push('resume'), resume());
    transport.setStatus('offline');
    expect(calls).to.deep.equal(['pause']);
    transport.setStatus('online');
    expect(calls).to.deep.equal(['pause', 'resume']);
  });
});
