// The arithmetic skill's handler (runs in a worker thread, shared/skills/worker.ts): the
// sandboxed mathjs expert of arithmetic.ts behind the handler API (shared/skills/handler-api.ts).
import { answerArithmetic, recogniseArithmetic } from './arithmetic.js';

export const recognise = (question: string): number => recogniseArithmetic(question);

export const run = (input: { question: string }) => answerArithmetic(input.question);
