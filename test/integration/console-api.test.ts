// The console's API against a real Parley (npm start's supervisor, real ejabberd, real agents):
// authentication, every endpoint, bad uploads that must write nothing, the live event stream and
// the OpenTelemetry export to a local OTLP/HTTP receiver.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Person } from '../../shared/trace/index.js';
import { traceIdOf } from '../../shared/console/otel.js';
import { type Answer, call, consoleOf, type ConsoleHandle, otlpReceiver } from '../support/console.js';
import { HANDLERS } from '../support/skills.js';
import { startSupervisor, stopSupervisor, type Supervised } from '../support/supervised.js';
import { until } from '../support/wait.js';

const TTL_MS = 3000;
const skillJson = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name, description: `test skill ${name}`, version: '1.0.0', handler: './handler.js', recognise: { patterns: [`^${name}\\b`] }, topics: [name], ...extra });

describe('Console API [integration]', function () {
  this.timeout(180000);
  let s: Supervised | undefined;
  let c: ConsoleHandle;
  let otlp: Awaited<ReturnType<typeof otlpReceiver>>;
  let conversationId = '';
  const userSkills = () => (s ? fs.readdirSync(path.join(s.cfg.home, 'skills'), { withFileTypes: true }).map((d) => d.name).sort() : []);

  before(async () => {
    otlp = await otlpReceiver();
    s = await startSupervisor('parley-console-', { PARLEY_CONSOLE_SESSION_TTL_MS: String(TTL_MS), PARLEY_OTLP_URL: otlp.url, PARLEY_SPECIALISTS: 'math:arithmetic' });
    c = consoleOf(s);
    fs.mkdirSync(path.join(s.cfg.home, 'skills'), { recursive: true });
    const person = await Person.connect(s.cfg, 'tracer');
    try {
      conversationId = (await person.ask('what is 17 * 23?')).thread;
    } finally {
      await person.close();
    }
  });
  after(async () => {
    await stopSupervisor(s?.sup, s?.cfg);
    await otlp?.close();
  });

  describe('authentication', () => {
    it('keeps the token in a 0600 file and answers nothing but the login page without it', async () => {
      expect(fs.statSync(path.join(s!.cfg.home, 'secrets', 'console-token')).mode & 0o777).to.equal(0o600);
      const none = await call(c, 'GET', '/api/agents', { auth: 'none' });
      expect(none.status).to.equal(401);
      expect(none.body).to.include({ error: 'UNAUTHENTICATED' });
      for (const url of ['/api/skills', '/api/messages', '/api/openapi.json', '/api/events', '/vendor/mermaid.min.js', '/assets/app.js']) {
        expect((await call(c, 'GET', url, { auth: 'none' })).status, url).to.equal(401);
      }
      expect((await call(c, 'POST', '/api/agents/spawn', { auth: 'none', body: { name: 'x' } })).status).to.equal(401);
      const root = await call(c, 'GET', '/', { auth: 'none' });
      expect([root.status, root.headers.get('location')]).to.deep.equal([302, '/login']);
      const login = await call(c, 'GET', '/login', { auth: 'none' });
      expect(login.status).to.equal(200);
      expect(String(login.body.text)).to.contain('Admin token');
    });

    it('refuses a wrong token, as Bearer and at login', async () => {
      const wrong = await call(c, 'GET', '/api/agents', { auth: { bearer: 'x'.repeat(43) } });
      expect([wrong.status, wrong.body.error]).to.deep.equal([401, 'BAD_TOKEN']);
      const login = await call(c, 'POST', '/api/login', { auth: 'none', body: { token: 'nope' } });
      expect([login.status, login.body.error]).to.deep.equal([401, 'BAD_TOKEN']);
      expect(login.headers.get('set-cookie')).to.equal(null);
      const forged = await call(c, 'GET', '/api/agents', { auth: { cookie: 'parley_console=forged' } });
      expect([forged.status, forged.body.error]).to.deep.equal([401, 'BAD_SESSION']);
    });

    it('logs a browser in with an HttpOnly SameSite=Strict cookie that expires', async () => {
      const login = await call(c, 'POST', '/api/login', { auth: 'none', body: { token: c.token } });
      expect(login.status).to.equal(200);
      const setCookie = login.headers.get('set-cookie') ?? '';
      expect(setCookie).to.match(/^parley_console=[A-Za-z0-9_-]{40,};/).and.contain('HttpOnly').and.contain('SameSite=Strict').and.contain('Expires=');
      const cookie = setCookie.split(';')[0]!;
      expect((await call(c, 'GET', '/api/agents', { auth: { cookie } })).status).to.equal(200);
      let last: Answer | undefined;
      await until(async () => (last = await call(c, 'GET', '/api/skills', { auth: { cookie } })).status === 401, 'the session to expire', TTL_MS + 10000, 250);
      const expired = await call(c, 'GET', '/api/agents', { auth: { cookie } });
      // The first request after the expiry is told so and forgets the session (ConsoleAuth.check);
      // from then on the cookie names no session at all.
      expect([last?.status, last?.body.error, expired.status, expired.body.error]).to.deep.equal([401, 'SESSION_EXPIRED', 401, 'BAD_SESSION']);
    });
  });

  describe('endpoints', () => {
    it('describes itself in OpenAPI 3.1 generated from contracts/console-*.json', async () => {
      const doc = (await call(c, 'GET', '/api/openapi.json')).body as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>; components: { schemas: Record<string, unknown> } };
      expect(doc.openapi).to.equal('3.1.0');
      expect(Object.keys(doc.paths)).to.include.members(['/api/agents', '/api/agents/spawn', '/api/agents/{name}/stop', '/api/skills', '/api/skills/{name}', '/api/skills/{name}/toggle', '/api/messages', '/api/conversations', '/api/conversations/{id}', '/api/events', '/api/sessions', '/api/sessions/{id}', '/api/meetings', '/api/tasks', '/api/bookings', '/api/directory']);
      expect(doc.paths['/api/skills']!.post!.requestBody!.content['application/json']!.schema.$ref).to.equal('#/components/schemas/ConsoleSkillUpload');
      expect(Object.keys(doc.components.schemas)).to.include.members(['ConsoleAgent', 'ConsoleSpawn', 'ConsoleSkillUpload', 'ConsoleMessageQuery', 'ConsoleError']);
    });

    it('lists every agent with numbers and enums', async () => {
      const r = await call(c, 'GET', '/api/agents');
      const agents = r.body.agents as Array<{ name: string; role: string; supervisor: { status: string; pid: number; name: string }; presence: string; df: { registered: boolean }; load: { in_per_min: number } }>;
      const presenter = agents.find((a) => a.role === 'presenter')!;
      expect(presenter.supervisor).to.include({ status: 'ready', name: 'presenter' });
      expect(presenter.supervisor.pid).to.be.a('number');
      expect(presenter.presence).to.equal('online');
      const math = agents.find((a) => a.name === 'specialist-math')!;
      expect(math.df.registered).to.equal(true);
      expect(agents.map((a) => a.name)).to.not.include('console');
      expect(r.body.edges).to.be.an('array');
    });

    it('shows the conversation: newest first with person and outcome, envelopes, hop times, signatures, invariants and Mermaid', async () => {
      await until(async () => ((await call(c, 'GET', '/api/conversations?limit=20')).body.conversations as Array<{ id: string; outcome: string }>).some((x) => x.id === conversationId && x.outcome === 'INFORM'), 'the conversation in the list');
      const list = (await call(c, 'GET', '/api/conversations?limit=20')).body.conversations as Array<{ id: string; person: string; hops: number; duration_ms: number }>;
      const mine = list.find((x) => x.id === conversationId)!;
      expect(mine.person).to.equal(`tracer@${s!.cfg.domain}`);
      expect(mine.hops).to.be.greaterThan(2);
      const d = (await call(c, 'GET', `/api/conversations/${conversationId}`)).body as { hops: Array<{ transit_ms: number; signature: { ok: boolean } }>; analysis: { violations: unknown[] }; mermaid: string };
      expect(d.analysis.violations).to.deep.equal([]);
      expect(d.mermaid).to.match(/^sequenceDiagram/);
      expect(d.hops.length).to.be.greaterThan(2);
      expect(d.hops.every((h) => h.signature.ok)).to.equal(true);
      expect(d.hops.every((h) => typeof h.transit_ms === 'number' && h.transit_ms >= 0)).to.equal(true);
      expect((await call(c, 'GET', '/api/conversations/sess-none')).status).to.equal(404);
    });

    it('queries messages with filters and cursor paging, and refuses bad queries with 400', async () => {
      const all = (await call(c, 'GET', `/api/messages?conversation=${conversationId}&limit=1000`)).body.messages as Array<{ seq: number; agent: string }>;
      expect(all.length).to.be.greaterThan(4);
      const paged: unknown[] = [];
      let cursor = '';
      for (let i = 0; i < 100; i++) {
        const page = (await call(c, 'GET', `/api/messages?conversation=${conversationId}&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).body;
        paged.push(...(page.messages as unknown[]));
        if (!page.next_cursor) break;
        cursor = String(page.next_cursor);
      }
      expect(paged).to.deep.equal(all);
      const informs = (await call(c, 'GET', `/api/messages?conversation=${conversationId}&performative=INFORM&agent=Presenter`)).body.messages as Array<{ performative: string; agent: string }>;
      expect(informs.length).to.be.greaterThan(0);
      expect(informs.every((m) => m.performative === 'INFORM' && m.agent === 'Presenter')).to.equal(true);
      // The sniffer's history leaves out the DF lease renewals (HEARTBEAT) that would fill it.
      let recent: Array<{ content_type: string | null }> = [];
      await until(async () => {
        recent = (await call(c, 'GET', '/api/messages?order=desc&limit=1000')).body.messages as typeof recent;
        return recent.some((m) => m.content_type === 'HEARTBEAT');
      }, 'a DF lease renewal (HEARTBEAT) to be recorded', 40000, 500);
      const quiet = (await call(c, 'GET', '/api/messages?order=desc&limit=1000&exclude_content=HEARTBEAT')).body.messages as Array<{ content_type: string | null }>;
      expect(quiet.length).to.be.greaterThan(0);
      expect(quiet.filter((m) => m.content_type === 'HEARTBEAT')).to.deep.equal([]);
      expect(quiet.some((m) => m.content_type === null), 'rows without a content type stay').to.equal(recent.some((m) => m.content_type === null));
      for (const q of ['cursor=garbage', 'limit=0', 'limit=5000', 'performative=%3Cscript%3E', 'bogus=1', 'exclude_content=%27%20OR%201']) {
        const r = await call(c, 'GET', `/api/messages?${q}`);
        expect([r.status, typeof r.body.detail], q).to.deep.equal([400, 'string']);
      }
    });

    it('exports the conversation as an OpenTelemetry trace over OTLP/HTTP', async () => {
      await until(() => otlp.bodies.some((b) => b.includes(conversationId)), 'the trace at the OTLP receiver', 20000, 100);
      const body = otlp.bodies.filter((b) => b.includes(conversationId)).join('\n');
      expect(body).to.contain(traceIdOf(conversationId)).and.contain('conversation_id').and.contain('parley.performative');
      expect(body).to.contain('"service.name"');
    });

    it('reads sessions, meetings, tasks, bookings and the DF', async () => {
      for (const [url, key] of [['/api/sessions', 'sessions'], ['/api/meetings', 'meetings'], ['/api/tasks', 'tasks'], ['/api/bookings', 'bookings'], ['/api/directory', 'registrations']] as const) {
        const r = await call(c, 'GET', url);
        expect([r.status, Array.isArray(r.body[key])], url).to.deep.equal([200, true]);
      }
      const df = (await call(c, 'GET', '/api/directory')).body.registrations as Array<{ profile: { name: string } }>;
      expect(df.map((r) => r.profile.name)).to.include('specialist-math');
      expect((await call(c, 'GET', '/api/sessions/nope')).status).to.equal(404);
    });
  });

  describe('agents', () => {
    it('spawns a specialist, which registers, and stops it', async () => {
      const bad = await call(c, 'POST', '/api/agents/spawn', { body: { name: '../evil' } });
      expect([bad.status, bad.body.error]).to.deep.equal([400, 'INVALID_REQUEST']);
      const r = await call(c, 'POST', '/api/agents/spawn', { body: { name: 'extra1', skills: ['arithmetic'] } });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.agent).to.include({ name: 'specialist-extra1', status: 'ready' });
      const again = await call(c, 'POST', '/api/agents/spawn', { body: { name: 'extra1' } });
      expect([again.status, again.body.error]).to.deep.equal([409, 'ALREADY_RUNNING']);
      const stop = await call(c, 'POST', '/api/agents/specialist-extra1/stop');
      expect(stop.status).to.equal(200);
      expect(stop.body.agent).to.include({ status: 'stopped', pid: null });
      expect((await call(c, 'POST', '/api/agents/nobody/stop')).status).to.equal(404);
    });
  });

  describe('skills', () => {
    it('uploads, lists, toggles, edits and deletes a skill', async () => {
      const up = await call(c, 'POST', '/api/skills', { body: { name: 'echo', skill_json: skillJson('echo'), files: { 'handler.js': HANDLERS.echo } } });
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      const listed = () => call(c, 'GET', '/api/skills').then((r) => (r.body.skills as Array<{ name: string; enabled: boolean; source: string; description: string }>).find((x) => x.name === 'echo'));
      expect(await listed()).to.include({ source: 'user', enabled: true });
      expect((await call(c, 'POST', '/api/skills/echo/toggle', { body: {} })).body.skill).to.include({ enabled: false });
      expect((await call(c, 'POST', '/api/skills/echo/toggle', { body: { enabled: true } })).body.skill).to.include({ enabled: true });
      const put = await call(c, 'PUT', '/api/skills/echo', { body: { skill_json: skillJson('echo', { description: 'edited in the console' }) } });
      expect(put.status).to.equal(200);
      expect((await listed())!.description).to.equal('edited in the console');
      const badPut = await call(c, 'PUT', '/api/skills/echo', { body: { skill_json: skillJson('echo', { version: 7 }) } });
      expect([badPut.status, badPut.body.error]).to.deep.equal([400, 'INVALID_SKILL_JSON']);
      expect((await listed())!.description).to.equal('edited in the console');
      const builtin = await call(c, 'PUT', '/api/skills/arithmetic', { body: { skill_json: '{}' } });
      expect(builtin.status).to.equal(409);
      expect((await call(c, 'DELETE', '/api/skills/echo')).status).to.equal(200);
      expect(await listed()).to.equal(undefined);
      expect((await call(c, 'POST', '/api/skills/nope/toggle', { body: {} })).status).to.equal(404);
    });

    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['oversize', { name: 'big', skill_json: skillJson('big'), files: { 'handler.js': `// ${'x'.repeat(300 * 1024)}\n${HANDLERS.echo}` } }, 'SKILL_TOO_LARGE'],
      ['a skill.json against its schema', { name: 'noschema', skill_json: JSON.stringify({ name: 'noschema', handler: './handler.js' }), files: { 'handler.js': HANDLERS.echo } }, 'INVALID_SKILL_JSON'],
      ['a ../ name', { name: '../evil', skill_json: skillJson('evil'), files: { 'handler.js': HANDLERS.echo } }, 'INVALID_SKILL_NAME'],
      ['a ../ file path', { name: 'escape', skill_json: skillJson('escape'), files: { 'handler.js': HANDLERS.echo, '../../escape.js': 'x' } }, 'INVALID_FILE_PATH'],
      ['an absolute file path', { name: 'escape', skill_json: skillJson('escape'), files: { 'handler.js': HANDLERS.echo, '/tmp/escape.js': 'x' } }, 'INVALID_FILE_PATH'],
      ['a skill.json that is not JSON', { name: 'notjson', skill_json: '{ "name": "notjson", ', files: { 'handler.js': HANDLERS.echo } }, 'SKILL_JSON_NOT_JSON'],
      ['a name that differs from skill.json', { name: 'one', skill_json: skillJson('two'), files: { 'handler.js': HANDLERS.echo } }, 'INVALID_SKILL_JSON'],
      ['a missing handler', { name: 'nohandler', skill_json: skillJson('nohandler'), files: {} }, 'HANDLER_MISSING'],
      ['a handler that does not load', { name: 'broken', skill_json: skillJson('broken'), files: { 'handler.js': 'export function run( {' } }, 'HANDLER_DOES_NOT_LOAD'],
      ['a body that is not the upload schema', { name: 'x', skill_json: '{}', files: 'not-a-map' }, 'INVALID_REQUEST'],
    ];
    for (const [what, body, code] of bad) {
      it(`refuses ${what} with 400 ${code} and writes nothing`, async () => {
        const before = userSkills();
        const r = await call(c, 'POST', '/api/skills', { body });
        expect([r.status, r.body.error], JSON.stringify(r.body)).to.deep.equal([400, code]);
        expect(String(r.body.detail).length).to.be.greaterThan(10);
        expect(userSkills()).to.deep.equal(before);
        expect(fs.existsSync('/tmp/escape.js') && fs.readFileSync('/tmp/escape.js', 'utf8') === 'x').to.equal(false);
        expect(fs.readdirSync(path.join(s!.cfg.home, 'run')).filter((f) => f.startsWith('upload-'))).to.deep.equal([]);
      });
    }
  });

  describe('events', () => {
    it('streams new envelopes as Server-Sent Events', async () => {
      const ac = new AbortController();
      const res = await fetch(`${c.base}/api/events`, { headers: { authorization: `Bearer ${c.token}` }, signal: ac.signal });
      expect(res.headers.get('content-type')).to.contain('text/event-stream');
      let text = '';
      const reader = res.body!.getReader();
      const reading = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += Buffer.from(value).toString('utf8');
        }
      })().catch(() => undefined);
      const person = await Person.connect(s!.cfg, 'tracer');
      let thread = '';
      try {
        thread = (await person.ask('what is 2 + 2?')).thread;
      } finally {
        await person.close();
      }
      await until(() => text.includes(thread), 'the envelopes of the new conversation on the stream', 10000);
      expect(text).to.match(/event: envelopes\ndata: \[/);
      await until(() => text.includes('event: agents'), 'the agents\' states once for a new client', 10000);
      expect((await call(c, 'GET', '/api/events?topics=bogus')).status).to.equal(400);
      ac.abort();
      await reading;
    });
  });
});
