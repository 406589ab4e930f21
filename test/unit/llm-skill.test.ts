// The llm skill and ctx.llm (docs/llm.md) in a SkillHost with the built-in skills, sandboxed as
// in a specialist, against the scripted server: the tool-call loop (each call a delegate_task,
// here answered by a stand-in Coordinator that runs the recognised skill), errors, timeouts, the
// loop bound, plan's split by the model, the key out of every skill's reach, and nothing served
// without PARLEY_LLM_URL.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ParleyError } from '../../shared/acl/index.js';
import { loadConfig } from '../../shared/config/index.js';
import { type LlmSettings, keyFile, llmSettings } from '../../shared/llm/index.js';
import { loadCatalogue, writeRegistry } from '../../shared/skills/index.js';
import { resolveGrants, SkillHost } from '../../shared/skills/hosting.js';
import { MAX_STEPS } from '../../skills/llm/loop.js';
import { termsFor, parsePerExpert } from '../../agents/specialist/terms.js';
import { reply, ScriptedLlm } from '../support/llm-server.js';
import { failure, tempSkillDirs, writeSkill } from '../support/skills.js';

const SERVED = ['llm', 'delegate_task', 'arithmetic', 'time', 'plan', 'peek', 'peek_granted'];
const PEEK = 'export async function run(i, ctx) { return JSON.stringify({ llm: typeof ctx.llm, key: Object.keys(process.env).filter((k) => /KEY/.test(k)) }); }\n';

function hostWith(settings: LlmSettings | undefined, dirs = tempSkillDirs()) {
  const delegated: string[] = [];
  // A stand-in Coordinator: the task goes to the skill that recognises it (never back to llm).
  const host: SkillHost = new SkillHost({
    select: (d) => SERVED.includes(d.name), maxWorkers: 2,
    a2a: async (kind, input, session) => {
      const task = String(input.task);
      delegated.push(task);
      const skill = await host.recognise(task);
      if (!skill || skill === 'llm') throw new ParleyError('INTERNAL_ERROR', `delegate_task: the Coordinator answered FAILURE NO_CANDIDATE: nobody answers ${task}`);
      const r = await host.run(skill, { question: task }, session);
      return { answer: r.answer, answered_by: `specialist-${skill}` };
    },
    ...(settings ? { llm: { settings } } : {}),
  });
  writeSkill(dirs.user, 'peek', PEEK, { capabilities: { llm: true, env: ['PARLEY_LLM_KEY'] }, examples: [] });
  writeSkill(dirs.user, 'peek_granted', PEEK, { capabilities: { llm: true }, examples: [] });
  writeRegistry(dirs.user, { skills: { peek_granted: { enabled: true, grants: { llm: true } }, peek: { enabled: true, grants: { env: ['PARLEY_LLM_KEY'] } } } });
  return { host, delegated, ready: host.apply(loadCatalogue(dirs)) };
}

describe('LLM [off] without PARLEY_LLM_URL nothing changes', function () {
  this.timeout(30000);
  const { host, ready } = hostWith(undefined);
  before(() => ready);
  after(() => host.close());

  it('the llm skill is not served, an open question is recognised by nobody, ctx.llm is absent', async () => {
    expect(host.skills().map((s) => s.name)).to.include('plan');
    expect(host.skills().map((s) => s.name)).to.not.include('llm');
    expect(await host.recognise('tell me a joke')).to.equal(null);
    expect(JSON.parse((await host.run('peek_granted', { question: 'x' }, 's')).answer)).to.deep.equal({ llm: 'undefined', key: [] });
    const r = await host.run('plan', { question: 'answer both: what is 2+2; what is 3*3' }, 's');
    expect(r.meta).to.not.have.property('split');
    expect(r.answer).to.equal('1. what is 2+2: 4 [specialist-arithmetic]\n2. what is 3*3: 9 [specialist-arithmetic]');
  });

  it('settings: none without the URL; a URL without a model is a start-up error', () => {
    const cfg = loadConfig({ PARLEY_HOME: tempSkillDirs().root });
    expect(llmSettings(cfg, {})).to.equal(undefined);
    expect(() => llmSettings(cfg, { PARLEY_LLM_URL: 'http://127.0.0.1:9/v1' })).to.throw(/PARLEY_LLM_MODEL is not/);
  });
});

describe('LLM [skill] the tool-call loop through delegate_task, errors, timeouts', function () {
  this.timeout(60000);
  const server = new ScriptedLlm();
  let ctx: ReturnType<typeof hostWith>;
  before(async () => {
    await server.start();
    ctx = hostWith({ url: server.url, model: 'test-model', key: 'sk-never-seen', timeoutMs: 800, stream: false });
    await ctx.ready;
  });
  after(async () => {
    await ctx.host.close();
    await server.close();
  });
  const ask = (question: string) => ctx.host.run('llm', { question }, 'sess-1');

  it('is served with the model; specialised skills still win what they recognise, llm takes the rest', async () => {
    expect(ctx.host.skills().map((s) => s.name)).to.include('llm');
    expect(await ctx.host.recognise('what is 17 * 23?')).to.equal('arithmetic');
    expect(await ctx.host.recognise('plan my party budget for 17 guests')).to.equal('llm');
  });

  it('a tool call runs as a delegation, its answer goes back to the model, the final answer carries the model name', async () => {
    server.push(reply.toolCalls([{ name: 'arithmetic', args: { question: '17*23' } }]));
    server.respond = (r) => reply.answer(`The party costs ${String(r.body.messages.at(-1)?.content)} euros.`, 'served-model-7b');
    const r = await ask('plan my party: 17 guests at 23 euros each');
    expect(r.answer).to.equal('The party costs 391 euros.');
    expect(r.meta).to.deep.include({ model: 'served-model-7b', steps: 2, skill: 'llm' });
    expect(r.meta.tool_calls).to.deep.equal([{ tool: 'arithmetic', task: '17*23', ok: true, answered_by: 'specialist-arithmetic' }]);
    expect(ctx.delegated).to.include('17*23');
    const [first, second] = server.received.slice(-2);
    const tools = first?.body.tools?.map((t) => t.function.name) ?? [];
    expect(tools).to.include.members(['arithmetic', 'time']);
    for (const t of ['llm', 'plan', 'delegate_task', 'peek']) expect(tools).to.not.include(t);
    const arithmetic = loadCatalogue(tempSkillDirs()).skills.find((s) => s.name === 'arithmetic');
    expect(first?.body.tools?.find((t) => t.function.name === 'arithmetic')?.function.parameters).to.deep.equal(arithmetic?.manifest.inputSchema);
    expect(second?.body.messages.at(-1)).to.deep.include({ role: 'tool', content: '391' });
  });

  it('a failed or unknown tool is told to the model, which still answers', async () => {
    server.push(reply.toolCalls([{ name: 'arithmetic', args: { question: 'bake a cake' } }, { name: 'nosuch', args: { question: 'x' } }, { name: 'time', args: 'not json' }]));
    server.respond = (r) => reply.answer(r.body.messages.filter((m) => m.role === 'tool').map((m) => m.content).join(' | '));
    const r = await ask('help me with three things');
    expect(r.answer).to.match(/^error: .*NO_CANDIDATE.* \| error: there is no tool "nosuch" \| error: the arguments are not a JSON object$/);
    expect((r.meta.tool_calls as Array<{ ok: boolean }>).map((u) => u.ok)).to.deep.equal([false, false, false]);
  });

  it(`the loop is bounded: a model that keeps calling tools gets none offered at step ${MAX_STEPS} and fails with LLM_LOOP`, async () => {
    server.respond = () => reply.toolCalls([{ name: 'arithmetic', args: { question: '1+1' } }]);
    const before = server.received.length;
    const e = await failure(ask('loop forever'));
    expect(e.code).to.equal('INTERNAL_ERROR');
    expect(e.detail).to.match(/^LLM_LOOP: the model scripted-model gave no answer within 4 steps \(3 tool calls\)/);
    const sent = server.received.slice(before);
    expect(sent).to.have.length(MAX_STEPS);
    expect(sent.at(-1)?.body.tools).to.equal(undefined);
  });

  it('HTTP 500, 401 and malformed JSON are FAILUREs with the reason; a hang is TIMEOUT LLM_TIMEOUT; never the key', async () => {
    server.push(reply.error(500, 'out of GPU memory'));
    const e500 = await failure(ask('q'));
    expect(e500.detail).to.match(/^LLM_HTTP: the model server answered HTTP 500: out of GPU memory/);
    server.push(reply.error(401, 'bad key sk-never-seen'));
    const e401 = await failure(ask('q'));
    expect(e401.detail).to.match(/HTTP 401/);
    expect(e401.detail).to.not.contain('sk-never-seen');
    server.push(reply.malformed());
    expect((await failure(ask('q'))).detail).to.match(/^LLM_BAD_RESPONSE: /);
    server.push(reply.hang());
    const hang = await failure(ask('q'));
    expect(hang.code).to.equal('TIMEOUT');
    expect(hang.detail).to.match(/^LLM_TIMEOUT: the model server at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions did not answer within 800 ms/);
  });

  it('plan asks the model to split; when the model fails, its rules split', async () => {
    server.push(reply.answer('```json\n{"parts": ["what is 6*7", "what is 2+3"]}\n```', 'splitter'));
    const r = await ctx.host.run('plan', { question: 'answer both: six times seven, and then two plus three' }, 's');
    expect(r.meta.split).to.deep.equal({ by: 'model', model: 'splitter' });
    expect(r.answer).to.equal('1. what is 6*7: 42 [specialist-arithmetic]\n2. what is 2+3: 5 [specialist-arithmetic]');
    server.push(reply.error(500, 'down'));
    const f = await ctx.host.run('plan', { question: 'answer both: what is 2+2; what is 3*3' }, 's');
    expect(f.meta.split).to.deep.include({ by: 'rules' });
    expect(String((f.meta.split as { fallback: string }).fallback)).to.match(/^LLM_HTTP/);
    expect(f.answer).to.contain('2+2: 4');
  });

  it('the key is out of every skill\'s reach: ctx.llm only when declared and granted, PARLEY_LLM_KEY never passed', async () => {
    expect(JSON.parse((await ctx.host.run('peek_granted', { question: 'x' }, 's')).answer)).to.deep.equal({ llm: 'object', key: [] });
    expect(JSON.parse((await ctx.host.run('peek', { question: 'x' }, 's')).answer)).to.deep.equal({ llm: 'undefined', key: [] });
    expect(resolveGrants({ env: ['PARLEY_LLM_KEY', 'TZ'] }, { PARLEY_LLM_KEY: 'k', TZ: 'UTC', PARLEY_HOME: '/tmp/h' }).env).to.deep.equal({ TZ: 'UTC' });
  });
});

describe('LLM [config] the key in secrets/llm.key, the offers dearer', () => {
  it('PARLEY_LLM_KEY is stored 0600 and taken out of the environment; later starts read the file', () => {
    const home = tempSkillDirs().root;
    const cfg = loadConfig({ PARLEY_HOME: home });
    const env: NodeJS.ProcessEnv = { PARLEY_LLM_URL: 'http://127.0.0.1:9/v1', PARLEY_LLM_MODEL: 'm', PARLEY_LLM_KEY: 'sk-abc' };
    expect(llmSettings(cfg, env)).to.deep.include({ key: 'sk-abc', model: 'm', timeoutMs: 20000, stream: true });
    expect(env).to.not.have.property('PARLEY_LLM_KEY');
    expect(fs.statSync(keyFile(cfg)).mode & 0o777).to.equal(0o600);
    expect(path.relative(home, keyFile(cfg))).to.equal(path.join('secrets', 'llm.key'));
    expect(llmSettings(cfg, { PARLEY_LLM_URL: 'http://127.0.0.1:9/v1', PARLEY_LLM_MODEL: 'm' })?.key).to.equal('sk-abc');
  });

  it('the llm skill offers at 10× the cost unless the operator names it', () => {
    const terms = termsFor(parsePerExpert('2', 1, 'c'), parsePerExpert('', 100, 'e'), parsePerExpert('', 5000, 't'));
    expect([terms('arithmetic').cost, terms('llm').cost]).to.deep.equal([2, 20]);
    expect(termsFor(parsePerExpert('2,llm=3', 1, 'c'), parsePerExpert('', 100, 'e'), parsePerExpert('', 5000, 't'))('llm').cost).to.equal(3);
  });
});
