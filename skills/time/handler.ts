// The time skill's handler (runs in a worker thread): luxon/chrono expert of time.ts, real clock.
// args.zone is the asker's time zone (the Coordinator sends it when the person set one, issue 16):
// "what time is it?" and "today" are read in it; a place in the question still wins.
import { DateTime } from 'luxon';
import type { Expert } from '../../shared/skills/expert.js';
import { createTimeExpert } from './time.js';

const experts = new Map<string, Expert>();
const MAX_CACHED = 64;

function expertFor(zone: string | undefined): Expert {
  // A zone luxon does not know would answer "Invalid DateTime": UTC instead.
  const key = zone && DateTime.now().setZone(zone).isValid ? zone : 'UTC';
  let e = experts.get(key);
  if (!e) {
    if (experts.size >= MAX_CACHED) experts.clear();
    e = createTimeExpert({ zone: key });
    experts.set(key, e);
  }
  return e;
}

export const recognise = (question: string): number | boolean => expertFor(undefined).recognise(question);

export const run = (input: { question: string; zone?: string }) => expertFor(input.zone).answer(input.question);
