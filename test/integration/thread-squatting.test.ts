// Perimeter [threads] (issue "Close the perimeter" §7): a person's thread stays hers across a
// Presenter crash. Before, ownership lived only in memory: whoever sent a thread id first after a
// restart took the conversation over and locked its owner out.
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { ChildInfo } from '../../shared/supervisor/index.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { ChatPerson } from '../support/chat-person.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

describe('Perimeter [threads] thread ownership survives a Presenter kill -9', function () {
  this.timeout(120000);
  let s: Supervised | undefined;
  /** Every USER_MSG the Presenter sent for `person` (its telemetry): conversation_id and body. */
  const userMsgsOf = (person: string): Array<{ conversation_id: string; body: string }> => {
    const db = new Database(path.join(s!.cfg.home, 'telemetry', 'Presenter.sqlite'), { readonly: true });
    try {
      return (db.prepare("SELECT conversation_id, body FROM envelopes WHERE direction = 'out' AND content_type = 'USER_MSG' ORDER BY seq").all() as Array<{ conversation_id: string; body: string }>)
        .filter((r) => r.body.includes(person));
    } finally {
      db.close();
    }
  };
  const conversationsOf = (person: string): string[] => userMsgsOf(person).map((r) => r.conversation_id);
  const presenter = async () => ((((await controlRequest(s!.cfg, 'GET', '/agents'))?.body.agents ?? []) as ChildInfo[]).find((a) => a.name === 'presenter'));

  before(async () => {
    s = await startSupervisor('parley-threads-', { PARLEY_SPECIALISTS: 'math:arithmetic' });
  });
  after(async () => stopSupervisor(s?.sup, s?.cfg));

  it('after the restart a squatter sending her thread id first gets a conversation of his own; she keeps hers', async () => {
    const alice = await ChatPerson.connect(s!.cfg, 'alice-threads');
    const mallory = await ChatPerson.connect(s!.cfg, 'mallory-threads');
    try {
      const thread = alice.say('what is 6 * 7?', `alice-own-${Date.now()}`);
      await alice.waitFor((l) => l.thread === thread && l.body.includes('42'), 'her first answer');
      const before = await presenter();
      process.kill(before!.pid as number, 'SIGKILL');
      await until(async () => { const p = await presenter(); return p?.status === 'ready' && p.pid !== before!.pid; }, 'the Presenter back', 60000, 50);

      // Mallory sends Alice's thread id first, asking to recall what was said in it.
      mallory.say('what did you tell me?', thread);
      const his = await mallory.waitFor((l) => l.thread === thread && !l.progress, 'his reply', 30000);
      expect(his.body).to.not.include('42'); // her conversation's facts are not his
      alice.say('what is 2 + 3?', thread);
      const hers = await alice.waitFor((l) => l.thread === thread && l.body.includes('5'), 'her answer after the restart', 30000);
      expect(hers.body).to.include('5');
      alice.say('what did you tell me?', thread);
      const recalled = await alice.waitFor((l) => l.thread === thread && /42/.test(l.body) && l !== hers, 'her recall', 30000);
      expect(recalled.body).to.include('42'); // still her conversation: her earlier answer is in it
      // The decisive check, from the Presenter's own record: every line Alice sent in her thread
      // went out as her conversation; Mallory's went out as another one.
      // Her three lines; the first may be there twice: a USER_MSG sent just before the crash is sent
      // again at the restart (shared/runtime/durable.ts; the Coordinator drops the copy by reply_with).
      const said = ['what is 6 * 7?', 'what is 2 + 3?', 'what did you tell me?'];
      const hersSent = () => said.every((line) => userMsgsOf('alice-threads@').some((r) => r.body.includes(line)));
      await until(() => hersSent() && conversationsOf('mallory-threads@').length >= 1, 'the telemetry rows', 10000, 100);
      expect([...new Set(conversationsOf('alice-threads@'))]).to.deep.equal([thread]);
      expect(conversationsOf('alice-threads@').length).to.be.within(3, 4);
      expect(conversationsOf('mallory-threads@')).to.have.length(1).and.not.include(thread);
    } finally {
      await alice.close();
      await mallory.close();
    }
  });
});
