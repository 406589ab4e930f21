// The time skill's handler (runs in a worker thread): luxon/chrono expert of time.ts, real clock.
import { createTimeExpert } from './time.js';

const expert = createTimeExpert();

export const recognise = (question: string): number | boolean => expert.recognise(question);

export const run = (input: { question: string }) => expert.answer(input.question);
