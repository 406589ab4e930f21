// The console's pure parts and its telemetry tail, without processes: upload checks, the
// OpenAPI rewrite, token and sessions, the feed over a real telemetry file, retention.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  ConsoleAuth, ensureConsoleToken, pruneTelemetry, SAMPLE_ROWS, TelemetryFeed, openApiDocument,
} from '../../shared/console/index.js';
import { traceIdOf } from '../../shared/console/otel.js';
import { consoleSettings } from '../../shared/console/settings.js';
import { loadConfig } from '../../shared/config/index.js';
import { checkUpload } from '../../shared/ops/index.js';
import { OpsError } from '../../shared/ops/errors.js';
import { SqliteTelemetry } from '../../shared/runtime/index.js';
import type { Envelope } from '../../shared/acl/index.js';

const manifest = (name: string, extra: object = {}) => JSON.stringify({ name, description: `skill ${name}`, version: '1.0.0', handler: './handler.js', ...extra });
const codeOf = (fn: () => void): string => {
  try {
    fn();
  } catch (err) {
    return err instanceof OpsError ? `${err.status} ${err.code}` : `not OpsError: ${(err as Error).message}`;
  }
  return 'ok';
};

describe('Console [uploads]', () => {
  it('accepts a well-formed upload and refuses every bad one with its own code', () => {
    const handler = { 'handler.js': 'export function run() {}' };
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo'), files: handler }))).to.equal('ok');
    expect(codeOf(() => checkUpload({ name: '../echo', skill_json: manifest('echo'), files: handler }))).to.equal('400 INVALID_SKILL_NAME');
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: '{', files: handler }))).to.equal('400 SKILL_JSON_NOT_JSON');
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo', { version: 1 }), files: handler }))).to.equal('400 INVALID_SKILL_JSON');
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('other'), files: handler }))).to.equal('400 INVALID_SKILL_JSON');
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo'), files: {} }))).to.equal('400 HANDLER_MISSING');
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo'), files: { ...handler, 'big.txt': 'x'.repeat(300 * 1024) } }))).to.equal('400 SKILL_TOO_LARGE');
    for (const p of ['../x.js', 'a/../../x.js', '/etc/passwd', '.hidden', 'lib/.git/config', 'skill.json', 'a\\b.js', '']) {
      expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo'), files: { ...handler, [p]: 'x' } })), p).to.equal('400 INVALID_FILE_PATH');
    }
    expect(codeOf(() => checkUpload({ name: 'echo', skill_json: manifest('echo'), files: { ...handler, 'lib/util.js': 'x' } }))).to.equal('ok');
  });
});

describe('Console [access]', () => {
  it('creates one 0600 token, keeps it, and checks it and sessions', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-unit-'));
    try {
      const s = consoleSettings(loadConfig({ PARLEY_HOME: home }), {});
      expect([s.port, s.bind, s.retentionDays, s.otlpUrl]).to.deep.equal([15290, '127.0.0.1', 7, undefined]);
      const token = ensureConsoleToken(s.tokenFile);
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(fs.statSync(s.tokenFile).mode & 0o777).to.equal(0o600);
      expect(ensureConsoleToken(s.tokenFile)).to.equal(token);
      const auth = new ConsoleAuth(token, 60000);
      expect([auth.checkToken(token), auth.checkToken(token + 'x'), auth.checkToken(undefined), auth.checkToken('')]).to.deep.equal([true, false, false, false]);
      const a = auth.login();
      const b = auth.login();
      expect(a.id).to.not.equal(b.id);
      expect(a.expires).to.be.greaterThan(Date.now());
      expect(() => consoleSettings(loadConfig({ PARLEY_HOME: home }), { PARLEY_CONSOLE_PORT: '70000' })).to.throw(/PARLEY_CONSOLE_PORT/);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('derives the trace id from the conversation id', () => {
    expect(traceIdOf('sess-1')).to.match(/^[0-9a-f]{32}$/).and.equal(traceIdOf('sess-1'));
    expect(traceIdOf('sess-2')).to.not.equal(traceIdOf('sess-1'));
  });
});

describe('Console [openapi]', () => {
  it('turns contract $refs into component refs and routes into paths', () => {
    const schema = { $id: 'https://parley.local/contracts/console-spawn.json', $schema: 'http://json-schema.org/draft-07/schema#', title: 'ConsoleSpawn', type: 'object' };
    const doc = openApiDocument([
      { method: 'POST', url: '/api/agents/spawn', schema: { body: { $ref: schema.$id }, summary: 'spawn' }, handler: () => undefined },
      { method: ['GET', 'HEAD'], url: '/api/agents/:name/stop', schema: {}, handler: () => undefined },
      { method: 'GET', url: '/', handler: () => undefined },
    ], [schema], { version: '1' }) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>; components: { schemas: Record<string, Record<string, unknown>> } };
    expect(doc.openapi).to.equal('3.1.0');
    expect(Object.keys(doc.paths)).to.deep.equal(['/api/agents/spawn', '/api/agents/{name}/stop']);
    expect(doc.paths['/api/agents/spawn']!.post!.requestBody).to.deep.equal({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ConsoleSpawn' } } } });
    expect(Object.keys(doc.paths['/api/agents/{name}/stop']!)).to.deep.equal(['get']);
    expect(doc.paths['/api/agents/{name}/stop']!.get!.parameters).to.deep.equal([{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(doc.components.schemas.ConsoleSpawn).to.deep.equal({ title: 'ConsoleSpawn', type: 'object' });
  });
});

describe('Console [feed]', () => {
  const env = (n: number, sender = 'Presenter', receiver = 'Coordinator'): Envelope => ({
    performative: 'REQUEST', sender, receiver, conversation_id: `sess-${n}`, reply_with: `msg-${n}`, ontology: 'MAS.Core', protocol: 'fipa-request',
    language: 'application/json', timestamp: new Date().toISOString(), content: { type: 'USER_MSG', text: 'hi', attachments: [], user: 'alice@localhost' },
  } as unknown as Envelope);

  it('hands live views every poll\'s newest rows but counts rates once a second', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-feed-'));
    try {
      const presenter = new SqliteTelemetry(path.join(dir, 'Presenter.sqlite'), 'Presenter');
      let now = 1_000_000;
      const feed = new TelemetryFeed(dir, 200, 1000, 1000, () => now);
      const samples: number[] = [];
      feed.on('sample', (rows, total) => samples.push(total));
      feed.poll(true);
      const step = (ms: number, rows: number) => {
        for (let i = 0; i < rows; i++) presenter.envelope('out', env(samples.length * 10 + i), 'sent');
        presenter.flush();
        now += ms;
        feed.poll();
      };
      step(200, 3);
      step(200, 2);
      expect(samples).to.deep.equal([3, 2], 'each live poll hands on its rows');
      expect(feed.rates().get('Presenter'), 'not counted yet: less than a second since the first count').to.equal(undefined);
      step(600, 1);
      expect(samples).to.deep.equal([3, 2, 1]);
      expect(feed.rates().get('Presenter')?.out_per_min, 'all six counted once, a second after the first count').to.equal(6);
      step(200, 0);
      expect(samples, 'nothing new, nothing handed on').to.have.length(3);
      feed.stop();
      presenter.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows new rows of every telemetry file, counts rates and edges, and prunes by age', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-feed-'));
    try {
      const presenter = new SqliteTelemetry(path.join(dir, 'Presenter.sqlite'), 'Presenter');
      presenter.envelope('out', env(0), 'sent');
      presenter.flush();
      const feed = new TelemetryFeed(dir, 200, 1000, 0); // counted at every poll here (see below for once a second)
      const seen: string[] = [];
      feed.on('rows', (rows) => seen.push(...rows.map((r) => `${r.agent}:${r.direction}:${r.conversation_id}:${r.body === null}`)));
      feed.poll(true); // history is not live
      expect(seen).to.deep.equal([]);
      presenter.envelope('out', env(1), 'sent');
      presenter.flush();
      const coordinator = new SqliteTelemetry(path.join(dir, 'Coordinator.sqlite'), 'Coordinator');
      coordinator.envelope('in', env(1), 'accepted');
      coordinator.flush();
      feed.poll();
      expect(seen.sort()).to.deep.equal(['Coordinator:in:sess-1:true', 'Presenter:out:sess-1:true']);
      feed.poll();
      expect(seen).to.have.length(2);
      expect(feed.rates().get('Presenter')).to.deep.equal({ in_per_min: 0, out_per_min: 1, active_conversations: 1 });
      expect(feed.edges()).to.deep.equal([{ from: 'Presenter', to: 'Coordinator', count: 1 }]);
      // A live view's sample: only the newest SAMPLE_ROWS of a poll are read, with the count of all.
      const samples: Array<{ seqs: number[]; total: number }> = [];
      feed.on('sample', (rows, total) => samples.push({ seqs: rows.map((r) => r.seq), total }));
      for (let i = 0; i < SAMPLE_ROWS + 30; i++) presenter.envelope('out', env(100 + i), 'sent');
      presenter.flush();
      feed.poll();
      expect(samples).to.have.length(1);
      expect(samples[0]!.total).to.equal(SAMPLE_ROWS + 30);
      expect(samples[0]!.seqs).to.have.length(SAMPLE_ROWS);
      expect(samples[0]!.seqs.at(-1)).to.equal(Math.max(...samples[0]!.seqs)); // oldest first, ending with the newest
      expect(seen).to.have.length(2 + SAMPLE_ROWS + 30, 'OpenTelemetry still gets every row');
      expect(feed.rates().get('Presenter')).to.deep.equal({ in_per_min: 0, out_per_min: 1 + SAMPLE_ROWS + 30, active_conversations: 1 + SAMPLE_ROWS + 30 });
      feed.stop();
      presenter.close();
      coordinator.close();
      expect(pruneTelemetry(dir, 0)).to.equal(0);
      expect(pruneTelemetry(dir, 1)).to.equal(0);
      expect(pruneTelemetry(dir, 1e-9)).to.equal(3 + SAMPLE_ROWS + 30);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
