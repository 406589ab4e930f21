// A person's experience in chat (issue 16), from a real XMPP client (@xmpp/client via ChatPerson)
// against the whole system (`node dist/scripts/supervisor.js`: real ejabberd, every agent a real
// process): friendly answers to what nobody can answer, compound questions in full, plain-word
// commands, the person's time zone, and a slow answer announced while it is under way.
import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { controlRequest } from '../../shared/supervisor/ipc.js';
import { defaultSkillDirs, loadCatalogue } from '../../shared/skills/index.js';
import { expect } from 'chai';
import { paths, type ParleyConfig } from '../../shared/config/index.js';
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { ensureAccount } from '../../shared/ejabberd/index.js';
import { fixInboundCounter } from '../../shared/transport/index.js';
import { ChatPerson } from '../support/chat-person.js';
import { rawClient } from '../support/raw-client.js';
import { writeSkill } from '../support/skills.js';
import { startSupervisor, stopSupervisor } from '../support/supervised.js';
import { until } from '../support/wait.js';
import fs from 'node:fs';
import path from 'node:path';

/** Error codes a person must never read (they belong in the trace). */
const CODES = /OUT_OF_SCOPE|INVALID_ARGS|NO_CANDIDATE|SPECIALIST_TIMEOUT|INTERNAL_ERROR|declined \(/;
const RESULT_TIMEOUT_MS = 4000;
const PROGRESS_MS = 1500;

describe('Chat [experience] what a person reads (real ejabberd, supervisor, agents, XMPP client)', function () {
  this.timeout(60000);
  let sup: ChildProcess;
  let cfg: ParleyConfig;
  let dora: ChatPerson;
  let env: NodeJS.ProcessEnv;
  let out: string[];
  const cli = (script: string, args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(repoRoot(), 'dist', 'scripts', script), ...args], { env, timeout: 60000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  before(async function () {
    this.timeout(150000);
    ({ sup, cfg, env, out } = await startSupervisor('parley-chat-', {
      PARLEY_SPECIALISTS: 'math:arithmetic,time:time,planner@planner:plan+delegate_task,slow@general:slowly',
      PARLEY_RESULT_TIMEOUT_MS: String(RESULT_TIMEOUT_MS),
      PARLEY_PRESENTER_PROGRESS_MS: String(PROGRESS_MS),
      PARLEY_BUSY_RETRY_MS: '0',
    }, {
      prepare: (home) => writeSkill(path.join(home, 'skills'), 'slowly',
        'export async function run() { await new Promise((r) => setTimeout(r, 20000)); return "too late"; }\n',
        { recognise: { patterns: ['^slowly\\b'] }, examples: ['slowly count to ten'], limits: { timeoutMs: 30000, memoryMb: 32 } }),
    }));
    dora = await ChatPerson.connect(cfg, 'dora');
  });

  after(async function () {
    this.timeout(60000);
    await dora?.close().catch(() => undefined);
    await stopSupervisor(sup, cfg);
  });

  it('"hello" and "thanks" get a short friendly line with things to try, from the live directory', async () => {
    const hello = (await dora.ask('hello')).answer;
    expect(hello).to.match(/^Hello! I'm Parley/).and.contain('Try e.g. "').and.contain('Say "help"');
    expect(hello).to.contain('what is 17 * 23?'); // the math specialist's published example
    expect(hello.split('\n')).to.have.length(1);
    expect((await dora.ask('thanks!')).answer).to.match(/^You're welcome!/);
  });

  it('a question no specialist can answer (English or German) gets one plain sentence, never the refusal codes', async () => {
    for (const q of ['write me a poem about spring', 'Wie spät ist es gerade bei dir?']) {
      const { answer } = await dora.ask(q);
      expect(answer, q).to.match(/^I can't help with that one\. Try e.g\. ".+"\. Say "help" to see everything I can do\.$/);
      expect(answer, q).to.not.match(CODES);
    }
    // General knowledge: why not, in the same one sentence.
    const capital = (await dora.ask('what is the capital of France?')).answer;
    expect(capital).to.equal('I have no encyclopaedia: my specialists know maths, time and dates, word definitions and your calendars. Say "help" to see everything I can do.');
  });

  it('the one useful reason a specialist had is the sentence ("division by zero")', async () => {
    const { answer } = await dora.ask('what is 1/0?');
    expect(answer).to.equal('Sorry, I could not answer that: the result is not a finite number (division by zero or overflow)');
  });

  it('a calculation goes on from the number just answered ("and times 2?", "divide that by 17"), and says so when there is none', async () => {
    expect((await dora.ask('what is 17 * 23?')).answer).to.equal('391');
    expect((await dora.ask('and times 2?')).answer).to.equal('782');
    expect((await dora.ask('divide that by 17')).answer).to.equal('46');
    expect((await dora.ask('squared')).answer).to.equal('2116');
    expect((await dora.ask('what time is it in Tokyo?')).answer).to.match(/^It is \d\d:\d\d in Tokyo/);
    // The last answer was not a number: nothing to go on from, said in words (before: mathjs's "Value expected").
    expect((await dora.ask('times 2')).answer).to.match(/^Go on from what\? /).and.contain('what is 17 * 23?');
  });

  it('a compound question is answered in full', async () => {
    const { answer } = await dora.ask('answer both: what is 17 * 23; what time is it in Tokyo?');
    expect(answer).to.match(/^1\. what is 17 \* 23: 391/m).and.match(/^2\. what time is it in Tokyo: It is \d\d:\d\d in Tokyo/m);
  });

  it('a compound question with a part nobody can answer says which part and why, in words', async () => {
    const { answer } = await dora.ask('answer both: what is 6 * 7; what is the capital of France?');
    expect(answer).to.match(/^1\. what is 6 \* 7: 42/m);
    expect(answer).to.match(/^2\. what is the capital of France: not answered \(I have no encyclopaedia: my specialists know maths, time and dates, word definitions and your calendars\)$/m);
    expect(answer).to.match(/^1 of 2 parts could not be answered/m);
    expect(answer).to.not.match(CODES);
  });

  it('without a planner online, a compound question answered in part says so and lists the parts (never silently half)', async function () {
    this.timeout(60000);
    expect((await cli('stop-cli.js', ['specialist-planner'])).code).to.equal(0);
    type Status = { agents: Array<{ name: string; registered: boolean }> };
    await until(async () => !(JSON.parse((await cli('status-cli.js', ['--json'])).stdout) as Status).agents.find((a) => a.name === 'specialist-planner')?.registered, 'the planner out of the directory', 30000, 300);
    const { answer } = await dora.ask('answer both: what is 17 * 23; what time is it in Tokyo?');
    const [first, note, ...rest] = answer.split('\n');
    expect(first).to.match(/^(391|It is \d\d:\d\d in Tokyo)/); // whichever specialist took it answered its own part
    expect(note).to.match(/^Only part of your question was answered: it has 2 parts, specialist-(math|time) answered it as one question, and no planner is online to answer the parts together\. Ask them one at a time: "what is 17 \* 23", "what time is it in Tokyo"\.$/);
    expect(rest).to.deep.equal([]);
    expect(answer).to.not.match(CODES);
  });

  it('plain-word commands work (tz), slash forms stay aliases, and "what time is it?" answers in the person\'s zone', async () => {
    expect((await dora.ask('tz Europe/Berlin')).answer).to.match(/Europe\/Berlin/);
    expect((await dora.ask('tz')).answer).to.contain('Your times are shown in Europe/Berlin');
    expect((await dora.ask('what time is it?')).answer).to.match(/^It is \d\d:\d\d in Europe\/Berlin \(UTC\+0[12]:00\)/);
    expect((await dora.ask('/tz UTC')).answer).to.match(/UTC/);
    expect((await dora.ask('what time is it?')).answer).to.match(/^It is \d\d:\d\d UTC/);
  });

  it('a slow answer: the person is told it is under way (and by whom), then the timeout they meet is the documented RESULT timeout', async () => {
    const t0 = Date.now();
    const thread = dora.say('slowly count to ten');
    const progress = await dora.waitFor((l) => l.thread === thread && !!l.progress, 'the progress line', 10000);
    expect(progress.body).to.equal('Still working on it: specialist-slow is working on your question (a specialist has up to 4 s to answer). I\'ll write as soon as there is an answer.');
    expect(progress.at - t0).to.be.at.least(PROGRESS_MS - 100);
    const answer = await dora.waitFor((l) => l.thread === thread && !l.progress, 'the answer', 20000);
    expect(answer.body).to.match(/^Sorry, no answer arrived in time \(specialist-slow took the question but did not answer within 4 s\)\. Please try again in a moment\.$/);
    expect(answer.at - t0).to.be.at.least(RESULT_TIMEOUT_MS - 100).and.below(RESULT_TIMEOUT_MS + 8000);
  });

  it('Operators: session list says so when there are none', async () => {
    const r = await cli('session-cli.js', ['list']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^no sessions/);
  });

  it('Operators: a deleted session\'s id is never reused, also from chat; the person reads a sentence, not a code', async () => {
    const thread = `chat-${Date.now()}`;
    const inThread = async (text: string) => {
      const from = dora.lines.length;
      dora.say(text, thread);
      return (await dora.waitFor((l) => l.thread === thread && !l.progress, `answering "${text}"`, 20000, from)).body;
    };
    expect(await inThread('session start Trip')).to.match(/^Session "Trip" started \(version 1\)/);
    expect(await inThread('session delete')).to.equal('Session "Trip" deleted.');
    const again = await inThread('session start Trip again');
    expect(again).to.equal(`Session: start refused: session ${thread} was deleted and its id is never used again; start a new conversation ("new") for a new session`);
    expect(again).to.not.match(/SESSION_EXISTS/);
    expect((await cli('session-cli.js', ['list'])).stdout).to.not.contain(thread);
    expect((await cli('session-cli.js', ['show', thread])).code).to.not.equal(0);
  });

  it('Ad-hoc commands (XEP-0050) with data forms (XEP-0004): listed, asked as forms, submitted as the chat command', async () => {
    const erin = await ChatPerson.connect(cfg, 'erin'); // subscribed to the Presenter
    const { jid, password } = await ensureAccount(cfg, 'erin');
    const xmpp = rawClient(cfg, jid, password, 'forms');
    // A CI run once saw this client closing mid-test (`Connection is closing`, then xmpp.js reading
    // data after its parser was detached); cause not found. One way a plain xmpp.js 0.14 client is
    // closed: its XEP-0198 count runs ahead of ejabberd's ("Client acknowledged more stanzas than
    // sent by server"; reproduced after ejabberd itself answered a malformed 'to' with an error).
    // Every agent's transport counts with sm-fix.ts, which that reproduction does not trip; this raw
    // client now does too. Its errors are still kept for the failure message.
    const clientErrors: string[] = [];
    xmpp.on('error', (err: Error) => clientErrors.push(String(err?.stack ?? err)));
    xmpp.on('status', (status: string) => { if (status === 'closing' || status === 'disconnect') clientErrors.push(`status ${status}`); });
    fixInboundCounter(xmpp as never, xmpp.streamManagement as never);
    let presenterJid = '';
    xmpp.on('stanza', (st: Element) => {
      if (st.is('presence') && String(st.attrs.from ?? '').startsWith(`presenter@${cfg.domain}/`) && st.attrs.type === undefined) presenterJid = String(st.attrs.from);
    });
    await xmpp.start();
    try {
      await xmpp.send(xml('presence'));
      await until(() => presenterJid !== '', "the Presenter's full JID from its presence", 10000, 50);
      expect(presenterJid).to.match(/^presenter@/);
      const iq = (child: Element, type = 'set') => (xmpp.iqCaller.request(xml('iq', { type, to: presenterJid }, child), 25000) as Promise<Element>)
        .catch((err: Error) => { throw new Error(`${err.message}; the client saw: ${clientErrors.join(' | ') || 'nothing'}`); });
      const COMMANDS = 'http://jabber.org/protocol/commands';
      const info = await iq(xml('query', { xmlns: 'http://jabber.org/protocol/disco#info' }), 'get');
      expect(info.getChild('query')?.getChildren('feature').map((f) => f.attrs.var)).to.include(COMMANDS);
      const items = await iq(xml('query', { xmlns: 'http://jabber.org/protocol/disco#items', node: COMMANDS }), 'get');
      expect(items.getChild('query')?.getChildren('item').map((i) => i.attrs.node)).to.deep.equal(['meet', 'assign', 'agenda', 'tz', 'session']);

      const execute = async (node: string, values: Record<string, string>) => {
        const form = (await iq(xml('command', { xmlns: COMMANDS, node, action: 'execute' }))).getChild('command') as Element;
        expect(form.attrs.status).to.equal('executing');
        const x = form.getChild('x', 'jabber:x:data') as Element;
        expect(x.attrs.type).to.equal('form');
        const submit = xml('x', { xmlns: 'jabber:x:data', type: 'submit' }, ...Object.entries(values).map(([k, v]) => xml('field', { var: k }, xml('value', {}, v))));
        const done = (await iq(xml('command', { xmlns: COMMANDS, node, sessionid: form.attrs.sessionid, action: 'complete' }, submit))).getChild('command') as Element;
        return { form: x, done, note: done.getChildText('note') ?? '' };
      };
      // Missing a required field: the form again, saying what is missing.
      const missing = await execute('tz', {});
      expect(missing.done.attrs.status).to.equal('executing');
      expect(missing.note).to.match(/^Missing: Time zone/);
      // Set the time zone by form; the chat then answers in it.
      const tz = await execute('tz', { zone: 'Asia/Tokyo' });
      expect(tz.form.getChildren('field').map((f) => f.attrs.var)).to.deep.equal(['zone']);
      expect(tz.done.attrs.status).to.equal('completed');
      expect(tz.note).to.contain('Asia/Tokyo');
      expect((await erin.ask('what time is it?')).answer).to.match(/^It is \d\d:\d\d in Asia\/Tokyo/);
      // The other three: each is the chat command it stands for (no calendars here, so meet and assign say so).
      const meet = await execute('meet', { with: 'bob, carol', minutes: '30', when: 'tomorrow afternoon', room: 'false' });
      expect(meet.note).to.match(/calendar for bob and carol/);
      const assign = await execute('assign', { title: 'Q1 report', to: 'bob', by: 'Friday' });
      expect(assign.note).to.match(/bob/).and.not.match(/can't help/);
      const session = await execute('session', { title: 'Launch plan' });
      expect(session.done.attrs.status).to.equal('completed');
      expect(session.note).to.match(/^Session ".*" started \(version 1\)/);
      const list = await cli('session-cli.js', ['list']);
      expect(list.stdout).to.match(/\terin@localhost\topen\tv1\t.*\tLaunch plan$/m);
    } finally {
      await xmpp.stop().catch(() => undefined);
      await erin.close().catch(() => undefined);
    }
  });

  it('a line a client asks receipts and markers for shows delivered and read (XEP-0184, XEP-0333), before its answer', async () => {
    const { jid, password } = await ensureAccount(cfg, 'gina');
    const xmpp = rawClient(cfg, jid, password, 'phone');
    fixInboundCounter(xmpp as never, xmpp.streamManagement as never);
    const seen: Element[] = [];
    xmpp.on('stanza', (st: Element) => { if (st.is('message')) seen.push(st); });
    await xmpp.start();
    try {
      await xmpp.send(xml('presence'));
      await xmpp.send(xml('message', { to: `presenter@${cfg.domain}`, type: 'chat', id: 'gina-1' }, xml('body', {}, 'what is 6 * 7?'),
        xml('request', { xmlns: 'urn:xmpp:receipts' }), xml('markable', { xmlns: 'urn:xmpp:chat-markers:0' })));
      await until(() => seen.some((m) => m.getChildText('body') === '42'), 'the answer', 20000, 20);
      const ack = seen.find((m) => m.getChild('received', 'urn:xmpp:receipts'));
      expect(ack?.getChild('received', 'urn:xmpp:receipts')?.attrs.id).to.equal('gina-1');
      expect(ack?.getChild('displayed', 'urn:xmpp:chat-markers:0')?.attrs.id).to.equal('gina-1');
      expect(String(ack?.attrs.from)).to.match(new RegExp(`^presenter@${cfg.domain}/`));
      expect(seen.indexOf(ack as Element), 'delivered before it is answered').to.be.below(seen.findIndex((m) => m.getChildText('body') === '42'));
    } finally {
      await xmpp.stop().catch(() => undefined);
    }
  });

  it('a second real client (slixmpp, Debian python3-slixmpp): plain-word chat, the zone, and an ad-hoc command form', async function () {
    this.timeout(120000);
    // Debian's python3 is where python3-slixmpp installs; PARLEY_PYTHON overrides.
    const python = [process.env.PARLEY_PYTHON, 'python3', '/usr/bin/python3'].find((p) => p && spawnSync(p, ['-c', 'import slixmpp']).status === 0);
    if (!python) this.skip(); // not installed here: apt-get install python3-slixmpp
    const { jid, password } = await ensureAccount(cfg, 'fred');
    const script = path.join(repoRoot(), 'test', 'support', 'slixmpp-person.py');
    const r = await promisify(execFile)(python as string, [script, jid, password, cfg.host, String(cfg.c2sPort), `presenter@${cfg.domain}`], { timeout: 100000 });
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(out.error, String(out.error)).to.equal(undefined);
    expect(out.hello).to.match(/^Hello! I'm Parley/);
    expect(out.tz).to.contain('Asia/Kolkata');
    expect(out.time).to.match(/^It is \d\d:\d\d in Asia\/Kolkata \(UTC\+05:30\)/);
    expect([...(out.commands as string[])].sort()).to.deep.equal(['agenda', 'assign', 'meet', 'session', 'tz']); // slixmpp keeps disco items in a set
    expect(out.form_fields).to.deep.equal(['zone']);
    expect(out.status).to.equal('completed');
    expect(out.note).to.contain('Europe/Oslo');
    expect(out.chat_copy).to.deep.equal([out.note]);
    expect(out.time_after_form).to.match(/^It is \d\d:\d\d in Europe\/Oslo/);
  });

  it('Operators: spawn with an unknown skill fails at once, naming the known ones', async () => {
    const t0 = Date.now();
    const r = await cli('spawn-cli.js', ['specialist', '--name', 'oops', '--skills', 'nosuch']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^spawn: unknown skill "nosuch"; known: .*arithmetic/);
    expect(Date.now() - t0).to.be.below(10000);
    // The supervisor's own endpoint (what the console calls) refuses it the same way, before starting anything.
    const res = await controlRequest(cfg, 'POST', '/spawn', { kind: 'specialist', name: 'oops', skills: ['nosuch'] });
    expect(res?.status).to.equal(400);
    expect(String(res?.body.detail)).to.match(/^unknown skill "nosuch"; known: /);
    const agents = ((await controlRequest(cfg, 'GET', '/agents'))?.body.agents ?? []) as Array<{ name: string }>;
    expect(agents.map((a) => a.name)).to.not.include('specialist-oops');
  });

  it('Operators: status --json gives numbers, booleans and enums', async () => {
    const r = await cli('status-cli.js', ['--json']);
    expect(r.code, r.stderr).to.equal(0);
    const s = JSON.parse(r.stdout) as { supervisor: boolean; agents: Array<Record<string, unknown>> };
    expect(s.supervisor).to.equal(true);
    const math = s.agents.find((a) => a.name === 'specialist-math') as Record<string, unknown> & { supervisor: Record<string, unknown> };
    expect(math.registered).to.equal(true);
    expect(math.heard_s_ago).to.be.a('number');
    expect(math.presence).to.equal('online');
    expect(math.ping_ok).to.equal(true);
    expect(math.ping_ms).to.be.a('number');
    expect(math.supervisor.pid).to.be.a('number');
    // A restart here is a crash or a failed first start: say why with the end of its log.
    // (its warnings, errors and any line that is not pino's JSON: a crash's stderr).
    const logTail = () => {
      try {
        const lines = fs.readFileSync(path.join(paths(cfg).logsDir, 'specialist-math.log'), 'utf8').split('\n');
        return lines.filter((l) => l && !/^\{"level":[123]0,/.test(l)).slice(-25).join('\n');
      } catch {
        return '(no log)';
      }
    };
    expect(math.supervisor.restarts, math.supervisor.restarts === 0 ? '' : logTail()).to.equal(0);
    expect(math.supervisor.status).to.equal('ready');
  });

  it('Operators: npm run stop NAME stops a specialist and keeps it down; an unknown name is a clear error', async () => {
    const r = await cli('stop-cli.js', ['specialist-slow']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^specialist-slow stopped/);
    const s = JSON.parse((await cli('status-cli.js', ['--json'])).stdout) as { agents: Array<{ name: string; supervisor: { status: string } | null }> };
    expect(s.agents.find((a) => a.name === 'specialist-slow')?.supervisor?.status).to.equal('stopped');
    const bad = await cli('stop-cli.js', ['specialist-nosuch']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/^stop: no agent named specialist-nosuch; running: /);
  });

  it('Operators: skills add makes the skill answerable at once: the supervisor starts a specialist for it and says which', async () => {
    const src = path.join(cfg.home, 'incoming');
    writeSkill(src, 'echoer', 'export async function run(input) { return "echo: " + input.question; }\n', { examples: ['echoer hello'] });
    const r = await cli('skills-cli.js', ['add', path.join(src, 'echoer')]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^added echoer 1\.0\.0/m).and.match(/^served by specialist-echoer \(started for it; registered with the Registry\)$/m);
    expect((await dora.ask('echoer hello there')).answer).to.equal('echo: echoer hello there');
    const list = await cli('skills-cli.js', ['list']);
    // A clipped description ends where a word ends in the full one.
    const full = loadCatalogue(defaultSkillDirs(cfg.home)).skills.map((x) => x.manifest.description);
    const clipped = list.stdout.split('\n').filter((l) => l.endsWith('…'));
    expect(clipped.length).to.be.above(0);
    for (const line of clipped) {
      const text = full.find((d) => line.includes(d.slice(0, 20))) as string;
      const shown = line.slice(line.indexOf(text.slice(0, 20)), -1);
      expect(text.startsWith(shown), line).to.equal(true);
      expect(text[shown.length], line).to.match(/[\s,;:.]/);
    }
  });

  it('Operators: a specialist that keeps failing at start is restarted with back-off, then stopped and reported with its reason', async function () {
    this.timeout(90000);
    type Status = { agents: Array<{ name: string; supervisor: { status: string; pid: number | null; restarts: number; last_error: string | null } | null }> };
    const echoer = async () => (JSON.parse((await cli('status-cli.js', ['--json'])).stdout) as Status).agents.find((a) => a.name === 'specialist-echoer')?.supervisor;
    const pid = (await echoer())?.pid as number;
    expect(pid, 'specialist-echoer (started by the previous test) runs').to.be.a('number');
    // Its skill goes away, then the process dies: every new start of it now fails ("unknown skill").
    expect((await cli('skills-cli.js', ['remove', 'echoer'])).code).to.equal(0);
    process.kill(pid, 'SIGKILL');
    await until(async () => (await echoer())?.status === 'failed', 'specialist-echoer given up', 60000, 500);
    const s = await echoer();
    expect(s).to.deep.include({ status: 'failed', pid: null, restarts: 5 }); // the kill, then 5 failed starts: 4 more restarts with back-off
    expect(s?.last_error).to.match(/^error: unknown skill "echoer"; known: /);
    const said = out.filter((l) => l.includes('specialist-echoer'));
    expect(said.filter((l) => /restart #\d in \d+ ms/.test(l)).map((l) => /in (\d+) ms/.exec(l)?.[1])).to.deep.equal(['250', '500', '1000', '2000', '4000']);
    expect(said.at(-1)).to.match(/error: specialist-echoer failed to start 5 times in a row; not restarting it: error: unknown skill "echoer"/);
    const restartsThen = s?.restarts;
    const text = await cli('status-cli.js', []);
    expect(text.stdout).to.match(/^specialist-echoer +\S+ +\S+ +failed restarts 5/m).and.match(/^specialist-echoer failed to start and is not restarted: error: unknown skill "echoer"/m);
    expect((await echoer())?.restarts, 'and it stays down').to.equal(restartsThen);
  });

});
