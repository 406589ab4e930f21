// What a skill's handler module may export and what it gets (docs/skills.md). A handler runs in
// a worker thread (shared/skills/worker.ts), never in the specialist's event loop, so it may be
// slow or broken without stopping the specialist.
import type { ChatAnswer, ChatMessage, ToolSpec } from '../llm/index.js';
//
//   export async function init(): Promise<void>            optional: load data; throwing = bad skill
//   export function recognise(question: string): number   optional (skill.json recognise.module)
//   export async function run(input, ctx): Promise<string | {answer, meta?}>   required

export type { ChatAnswer, ChatMessage, ToolCall, ToolSpec } from '../llm/index.js';

export interface SkillResult {
  answer: string;
  meta?: Record<string, unknown>;
}

/** One agent as query_agents reports it. */
export interface AgentSummary {
  name: string;
  role?: string;
  skills?: string[];
  description?: string;
}

export interface SkillContext {
  /** The person's session (= conversation_id): delegations stay in it. */
  session_id: string;
  skill: string;
  /** Runs another skill this specialist serves (skill.json `uses` lists it). */
  use(skill: string, input: Record<string, unknown>): Promise<SkillResult>;
  /** Only for the built-in delegation skills: a request to the Coordinator (see docs/skills.md). */
  a2a(kind: A2aKind, input: Record<string, unknown>): Promise<unknown>;
  /**
   * Only for skills whose skill.json declares capabilities.llm (granted), and only when the
   * install has a model (PARLEY_LLM_URL): otherwise undefined. The specialist process makes the
   * HTTP call with the key; the skill never sees it (docs/llm.md).
   */
  llm?: LlmAccess;
}

export interface LlmAccess {
  /** One chat completion (OpenAI-compatible); throws "LLM_…: reason" on failure. */
  chat(request: { messages: ChatMessage[]; tools?: ToolSpec[] }): Promise<ChatAnswer>;
  /** The skills catalogue as tools: each answering skill, its inputSchema as the parameters. */
  tools(): Promise<ToolSpec[]>;
}

export type A2aKind = 'delegate_task' | 'query_agents' | 'broadcast_event';

export type HandlerModule = {
  init?: () => Promise<void> | void;
  recognise?: (question: string) => number | boolean;
  run: (input: Record<string, unknown>, ctx: SkillContext) => Promise<string | SkillResult> | string | SkillResult;
};

/** Thrown for input the skill recognises but cannot use: FAILURE INVALID_ARGS (seed contract §4). */
export class SkillInputError extends Error {
  readonly code = 'INVALID_ARGS';
}

export const invalidArgs = (detail: string): SkillInputError => new SkillInputError(detail);
