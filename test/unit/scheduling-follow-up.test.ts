import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userMsgFactory } from '../../agents/coordinator/factory.js';
import { ASKED_BACK_TTL_MS, completion } from '../../agents/coordinator/scheduling/follow-up.js';
import { SchedulingStore } from '../../agents/coordinator/scheduling/store.js';
import { identify } from '../../shared/runtime/index.js';
import { DOMAIN, T, userMsg } from './coordinator-harness.js';

const NOW = new Date('2026-12-09T10:00:00Z');

describe('Coordinator [follow-up] an answer to a question asked back completes the request', () => {
  it('reads what fits each question, and nothing else', () => {
    const duration = { text: 'meet bob on friday', missing: 'duration' } as const;
    expect(completion(duration, '30 min')).to.equal('meet bob on friday for 30 min');
    expect(completion(duration, 'for an hour')).to.equal('meet bob on friday for an hour');
    expect(completion(duration, 'make it 1h30')).to.equal('meet bob on friday for 1h30');
    expect(completion(duration, 'half an hour please')).to.equal('meet bob on friday for half an hour');
    for (const l of ['what is 30 * 2', 'cancel', 'bob', '30 apples']) expect(completion(duration, l), l).to.equal(undefined);
    const people = { text: 'schedule 30 min tomorrow', missing: 'people' } as const;
    expect(completion(people, 'bob and carol')).to.equal('schedule 30 min tomorrow with bob and carol');
    expect(completion(people, 'with bob')).to.equal('schedule 30 min tomorrow with bob');
    for (const l of ['cancel', 'never mind', 'no', 'what time is it?']) expect(completion(people, l), l).to.equal(undefined);
    const details = { text: 'schedule', missing: 'details' } as const;
    expect(completion(details, 'with bob tomorrow for 1 hour')).to.equal('schedule with bob tomorrow for 1 hour');
    expect(completion(details, '30 min with carol on friday')).to.equal('schedule 30 min with carol on friday');
    expect(completion(details, 'what is 2+2?')).to.equal(undefined);
  });

  describe('through the factory, with the real store', () => {
    let dir: string;
    let store: SchedulingStore;
    let now: Date;
    const from = identify('presenter@localhost', DOMAIN);
    const factory = () => userMsgFactory({
      self: 'Coordinator', domain: DOMAIN, timeouts: T,
      scheduling: {
        oacopTimeoutMs: 5000, lastMeeting: () => undefined, openTasks: () => [], now: () => now,
        askedBack: (p) => store.askedBack(p), saveAskedBack: (p, a) => store.saveAskedBack(p, a),
      },
    });
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-follow-up-'));
      store = new SchedulingStore(path.join(dir, 'scheduling.sqlite'));
      now = NOW;
    });
    afterEach(() => {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const input = (f: ReturnType<typeof factory>, text: string, user = 'alice@localhost', replyWith?: string) => {
      const req = userMsg(text, user);
      if (replyWith) req.reply_with = replyWith;
      return f(req, from).input as { detail?: string; wish?: { durationMin: number; participants: string[]; window: { start: string } } };
    };

    it('"meet bob on friday" → "How long …?" → "30 min" books 30 min with bob on friday (it went to the arithmetic skill)', () => {
      const f = factory();
      expect(input(f, 'meet bob on friday').detail).to.match(/^How long should the meeting be\?/);
      const wish = input(f, '30 min', 'alice@localhost', 'r-answer').wish;
      expect(wish).to.deep.include({ durationMin: 30, participants: ['bob'] });
      expect(wish?.window.start).to.equal('2026-12-11T08:00:00.000Z');
      // Its copy after a restart (the same reply_with) is completed again; any other line is not.
      expect(input(f, '30 min', 'alice@localhost', 'r-answer').wish).to.deep.include({ durationMin: 30 });
      expect(input(f, '30 min', 'alice@localhost', 'r-other').wish).to.equal(undefined);
    });

    it('"schedule a meeting" → "With whom, for how long and when?" → "with bob tomorrow for 1 hour"; a question asked back answers again until complete', () => {
      const f = factory();
      expect(input(f, 'schedule a meeting').detail).to.match(/^With whom, for how long and when\?/);
      expect(input(f, 'with bob tomorrow', 'alice@localhost', 'r1').detail).to.match(/^How long should the meeting be\?/);
      expect(input(f, 'an hour', 'alice@localhost', 'r2').wish).to.deep.include({ durationMin: 60, participants: ['bob'] });
    });

    it('only the person asked, only what fits, and only for 10 minutes', () => {
      const f = factory();
      input(f, 'meet bob on friday');
      // Mallory's "30 min" is her own line: nothing was asked of her.
      expect(input(f, '30 min', 'mallory@localhost').wish).to.equal(undefined);
      // A line that is no answer is read on its own, and the question stays open.
      expect(input(f, 'my meetings', 'alice@localhost', 'r1')).to.not.have.property('wish');
      now = new Date(NOW.getTime() + ASKED_BACK_TTL_MS + 1000);
      expect(input(f, '30 min', 'alice@localhost', 'r2').wish, 'too late: read on its own').to.equal(undefined);
    });
  });
});
