// Whether this install has a model (PARLEY_LLM_URL, PARLEY_LLM_MODEL) and its key. The key lives
// in $PARLEY_HOME/secrets/llm.key (0600, like every secret of the state directory): PARLEY_LLM_KEY
// given at start is written there and taken out of the environment, so neither a child process
// nor a skill's sandbox inherits it; later starts read the file. Never logged (docs/llm.md).
import fs from 'node:fs';
import path from 'node:path';
import { envFlag, envNumber, envString, envTake, type ParleyConfig, paths } from '../config/index.js';
import { writePrivateFile } from '../secrets/index.js';
import type { LlmSettings } from './client.js';

export const keyFile = (cfg: ParleyConfig): string => path.join(paths(cfg).secrets, 'llm.key');

/** Stores PARLEY_LLM_KEY (when given) in secrets/llm.key and returns the stored key, if any. */
export function llmKey(cfg: ParleyConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = keyFile(cfg);
  const given = envTake('PARLEY_LLM_KEY', env)?.trim();
  if (given) {
    let stored: string | undefined;
    try {
      stored = fs.readFileSync(file, 'utf8').trim();
    } catch {
      stored = undefined;
    }
    if (stored !== given) writePrivateFile(file, given + '\n');
    return given;
  }
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The model settings, or undefined when PARLEY_LLM_URL is unset (then nothing changes: no `llm`
 * skill, `plan` splits by its rules). A URL without a model is a start-up error.
 */
export function llmSettings(cfg: ParleyConfig, env: NodeJS.ProcessEnv = process.env): LlmSettings | undefined {
  const url = envString('PARLEY_LLM_URL', env);
  const key = llmKey(cfg, env);
  if (!url) return undefined;
  const model = envString('PARLEY_LLM_MODEL', env);
  if (!model) throw new Error('PARLEY_LLM_URL is set but PARLEY_LLM_MODEL is not: name the model (README "LLM-backed specialists")');
  return {
    url, model, ...(key ? { key } : {}),
    timeoutMs: envNumber('PARLEY_LLM_TIMEOUT_MS', env),
    stream: envFlag('PARLEY_LLM_STREAM', env),
  };
}

/** What may be logged about the settings: never the key, only whether there is one. */
export const describeLlm = (s: LlmSettings) => ({ url: s.url, model: s.model, key: s.key ? 'set' : 'none', timeout_ms: s.timeoutMs, stream: s.stream });
