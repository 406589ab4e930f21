// What the llm skill adds per call (docs/llm.md, docs/bench.md): `llm-direct` is one chat
// completion straight to the scripted OpenAI-compatible server (shared/llm/scripted-server.ts),
// `llm-skill` the same completion asked by the llm skill in its sandboxed worker through a
// SkillHost: input validation, the pool, IPC to the host (ctx.llm.tools, ctx.llm.chat), the HTTP
// call from the host, the answer back. The difference of the two is the skill's overhead per model
// call; the model's own time (zero here) comes on top in real use. No ejabberd involved.
import { chatCompletion, type LlmSettings } from '../llm/index.js';
import { reply, ScriptedLlm } from '../llm/scripted-server.js';
import { defaultSkillDirs, loadCatalogue } from '../skills/index.js';
import { SkillHost } from '../skills/hosting.js';
import type { Runner, Scenario } from './scenario.js';

const ANSWER = 'Paris is the capital of France.';

async function server(): Promise<{ llm: ScriptedLlm; settings: LlmSettings }> {
  const llm = await new ScriptedLlm().start();
  llm.respond = () => reply.answer(ANSWER, 'bench-model');
  return { llm, settings: { url: llm.url, model: 'bench-model', timeoutMs: 5000, stream: false } };
}

export const llmDirect: Scenario = {
  name: 'llm-direct',
  description: 'one chat completion from the specialist process straight to a scripted OpenAI-compatible server (loopback HTTP)',
  async setup(): Promise<Runner> {
    const { llm, settings } = await server();
    return {
      roundTrip: async () => {
        const a = await chatCompletion(settings, { messages: [{ role: 'user', content: 'capital of France?' }] });
        if (a.message.content !== ANSWER) throw new Error(`unexpected answer ${a.message.content}`);
      },
      close: () => llm.close(),
    };
  },
};

export const llmSkill: Scenario = {
  name: 'llm-skill',
  description: 'the same completion asked by the llm skill in its sandboxed worker (SkillHost.run: validation, pool, IPC, host-side HTTP)',
  baseline: 'llm-direct',
  async setup(instance): Promise<Runner> {
    const { llm, settings } = await server();
    const host = new SkillHost({ select: (d) => d.name === 'llm' || d.name === 'delegate_task', maxWorkers: 4, llm: { settings } });
    await host.apply(loadCatalogue(defaultSkillDirs(instance.cfg.home)));
    if (!host.skills().some((s) => s.name === 'llm')) throw new Error('the llm skill did not load');
    return {
      roundTrip: async () => {
        const r = await host.run('llm', { question: 'capital of France?' }, 'sess-bench');
        if (r.answer !== ANSWER || r.meta.model !== 'bench-model') throw new Error(`unexpected answer ${r.answer}`);
      },
      close: async () => {
        await host.close();
        await llm.close();
      },
    };
  },
};
