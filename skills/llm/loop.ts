// The tool-call loop (docs/llm.md): ask the model with the skills catalogue as tools; every tool
// call becomes a delegate_task through the Coordinator (so it is in the person's trace and is
// answered by whichever specialist serves that skill), its answer goes back to the model, until
// the model answers in words. Bounded: at most MAX_STEPS model calls (the last one offered no
// tools, so it must answer) and MAX_CALLS tool calls in all.
import type { ChatMessage, LlmAccess, SkillContext, ToolCall } from '../../shared/skills/handler-api.js';

export const MAX_STEPS = 4;
export const MAX_CALLS = 8;

export const SYSTEM_PROMPT = [
  "You are Parley's assistant, answering a person in a chat.",
  'When one of the tools fits a part of the question, call it: a specialist answers it exactly; use its answer, do not redo its work.',
  'Answer briefly, in the language of the question.',
].join(' ');

export interface ToolUse {
  tool: string;
  task: string;
  ok: boolean;
  answered_by: string | null;
  /** Why it failed, in words (ok false). */
  reason?: string;
}

export interface LoopResult {
  answer: string;
  meta: { model: string; steps: number; tool_calls: ToolUse[] };
}

/** What the delegated task says: the tool's `question`, else the tool name and its arguments. */
export function taskOf(tool: string, args: Record<string, unknown>): string {
  if (typeof args.question === 'string' && args.question.trim()) return args.question.trim();
  return `${tool}: ${JSON.stringify(args)}`;
}

async function runTool(call: ToolCall, known: ReadonlySet<string>, ctx: SkillContext): Promise<{ content: string; use: ToolUse }> {
  const tool = call.function.name;
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return { content: 'error: the arguments are not a JSON object', use: { tool, task: call.function.arguments.slice(0, 200), ok: false, answered_by: null, reason: 'arguments not JSON' } };
  }
  const task = taskOf(tool, args);
  if (!known.has(tool)) return { content: `error: there is no tool ${JSON.stringify(tool)}`, use: { tool, task, ok: false, answered_by: null, reason: 'no such tool' } };
  try {
    const r = await ctx.use('delegate_task', { task });
    const by = (r.meta?.answered_by as string | null | undefined) ?? null;
    return { content: r.answer, use: { tool, task, ok: true, answered_by: by } };
  } catch (err) {
    const reason = (err as Error).message.replace(/^delegate_task: /, '').slice(0, 300);
    return { content: `error: ${reason}`, use: { tool, task, ok: false, answered_by: null, reason } };
  }
}

export async function answerWithTools(question: string, llm: LlmAccess, ctx: SkillContext): Promise<LoopResult> {
  const tools = await llm.tools();
  const known = new Set(tools.map((t) => t.function.name));
  const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: question }];
  const uses: ToolUse[] = [];
  let model = '';
  for (let step = 1; step <= MAX_STEPS; step += 1) {
    const offer = step < MAX_STEPS && uses.length < MAX_CALLS && tools.length > 0;
    const r = await llm.chat({ messages, ...(offer ? { tools } : {}) });
    model = r.model;
    const calls = r.message.tool_calls ?? [];
    if (calls.length === 0) {
      const answer = (r.message.content ?? '').trim();
      if (!answer) throw new Error(`LLM_BAD_RESPONSE: the model ${model} gave an empty answer`);
      return { answer, meta: { model, steps: step, tool_calls: uses } };
    }
    if (!offer) break; // tool calls although none were offered: it will not stop
    messages.push({ role: 'assistant', content: r.message.content ?? null, tool_calls: calls });
    const room = MAX_CALLS - uses.length;
    const done = await Promise.all(calls.map((c, i) => (i < room
      ? runTool(c, known, ctx)
      : Promise.resolve({ content: 'error: too many tool calls; answer with what you have', use: { tool: c.function.name, task: '', ok: false, answered_by: null, reason: 'over the limit' } }))));
    done.forEach((d, i) => {
      uses.push(d.use);
      messages.push({ role: 'tool', tool_call_id: (calls[i] as ToolCall).id, content: d.content });
    });
  }
  throw new Error(`LLM_LOOP: the model ${model} gave no answer within ${MAX_STEPS} steps (${uses.length} tool calls)`);
}
