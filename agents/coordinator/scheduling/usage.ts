// A scheduling command the Coordinator recognised but cannot use ("schedule with bob" without a
// duration, a malformed /meet): one PRESENTER_REPLY saying what is missing, at once.
import type { CoordinatorInput } from '../envelopes.js';
import { oneReplyMachine } from './one-reply.js';

export interface UsageInput extends CoordinatorInput {
  detail: string;
  /** "Which one?": the lines that answer it (rich.choices; a numbered list is answered by its number, agents/presenter/shown-choices.ts). */
  choices?: Array<{ label: string; say: string }>;
}

export const usageMachine = oneReplyMachine<UsageInput>('coordinator-scheduling-usage', (i) => ({
  text: i.detail, rich: { kind: 'scheduling', status: 'invalid', detail: i.detail, ...(i.choices?.length ? { choices: i.choices } : {}) },
}));
