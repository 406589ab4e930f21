// Perimeter §6 (issue "Close the perimeter"): one person sends 2,000 lines as fast as her client
// can while another asks ordinary questions, against the whole system under the real supervisor.
// The other person's answers stay right and come while the flood is on; the flooder is told
// plainly to slow down; her admitted lines are all answered, none twice; nothing crashes.
// Latencies are printed (speed goals belong in `npm run bench`, not in a test).
import { expect } from 'chai';
import type { ParleyConfig } from '../../shared/config/index.js';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { ChatPerson } from '../support/chat-person.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';

const FLOOD = 2000;
const SLOW_DOWN = /^You're sending messages faster than I can answer/;

describe('Perimeter [fairness] one person floods the Presenter with 2,000 lines; another is served as usual', function () {
  this.timeout(120000);
  let s: Supervised;
  let cfg: ParleyConfig;
  let flooder: ChatPerson;
  let bob: ChatPerson;

  before(async function () {
    this.timeout(150000);
    s = await startSupervisor('parley-fair-', { PARLEY_AUTOSCALE: '0' });
    cfg = s.cfg;
    [flooder, bob] = await Promise.all([ChatPerson.connect(cfg, 'flooder'), ChatPerson.connect(cfg, 'bob')]);
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all([flooder, bob].map((p) => p?.close().catch(() => undefined)));
    await stopSupervisor(s?.sup, cfg);
  });

  const timed = async (person: ChatPerson, text: string) => {
    const t0 = performance.now();
    const { answer } = await person.ask(text, { timeoutMs: 30000 });
    return { answer, ms: performance.now() - t0 };
  };

  it('keeps the other person\'s answers right and timely, tells the flooder to slow down, answers what it took once', async () => {
    const baseline: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await timed(bob, `what is ${i} * 11?`);
      expect(r.answer).to.contain(String(i * 11));
      baseline.push(r.ms);
    }
    const threads = Array.from({ length: FLOOD }, (_, i) => flooder.say(`what is ${1000 + i} * 3?`));
    const during: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await timed(bob, `what is ${i} * 13?`);
      expect(r.answer, 'bob is answered right during the flood').to.contain(String(i * 13));
      during.push(r.ms);
    }
    const notice = await flooder.waitFor((l) => SLOW_DOWN.test(l.body), 'the slow-down notice', 30000);
    expect(notice.body).to.match(/set aside \d+ messages/).and.contain('send what I set aside again');
    // Every line the Presenter took is answered once, right; the set-aside ones get nothing.
    const answered = () => threads.filter((t) => flooder.lines.some((l) => l.thread === t && !l.progress));
    await flooder.waitFor(() => answered().length >= 10, 'the admitted burst answered', 30000);
    const counts = threads.map((t) => flooder.lines.filter((l) => l.thread === t && !l.progress).length);
    expect(Math.max(...counts), 'no line answered twice').to.equal(1);
    for (const [i, t] of threads.entries()) {
      const line = flooder.lines.find((l) => l.thread === t && !l.progress);
      if (line) expect(line.body).to.contain(String((1000 + i) * 3));
    }
    const took = counts.filter((n) => n === 1).length;
    expect(took, 'the burst, not the flood').to.be.within(10, 60);
    const agents = ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[];
    expect(agents.filter((a) => a.status !== 'ready').map((a) => a.name), 'nothing crashed').to.deep.equal([]);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    console.log(`      (bob: median ${median(baseline).toFixed(1)} ms before, ${median(during).toFixed(1)} ms during a ${FLOOD}-line flood; flooder: ${took} lines taken, told "${notice.body.slice(0, 80)}…")`);
  });
});
