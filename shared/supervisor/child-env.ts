// The environment a supervised child starts with: the supervisor's, less what only costs it.
import { envRaw } from '../config/index.js';
import type { AgentSpec } from './spec.js';

/**
 * NODE_EXTRA_CA_CERTS makes Node read and decode every certificate of that file, and build its
 * own root store, before the child's first line runs (node::crypto::UseExtraCaCerts, at process
 * start): with the system bundle (/etc/ssl/certs/ca-certificates.crt) that is ≈ 65 ms of CPU per
 * process on the 2-core box, a fifth of a core agent's start (issue 15, `npm start` ≤ 1.5 s).
 * Only a process that may open a TLS connection needs the extra authorities, and an agent's XMPP
 * stream never does (loopback, shared/transport/client.ts). Kept for a specialist when a model is
 * configured (PARLEY_LLM_URL: its answer may redirect to https) and for the console when it
 * exports traces (PARLEY_OTLP_URL). Fewer trusted authorities never weaken a connection.
 * `npm start` starts the supervisor itself without it (scripts/start.sh moves it to
 * PARLEY_CHILD_CA_CERTS): those children get it back from there.
 */
export function childEnv(spec: Pick<AgentSpec, 'kind'>, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const ca = envRaw('PARLEY_CHILD_CA_CERTS', env) ?? env.NODE_EXTRA_CA_CERTS;
  const { NODE_EXTRA_CA_CERTS: _dropped, PARLEY_CHILD_CA_CERTS: _moved, ...rest } = env;
  if (!ca) return rest;
  return mayOpenTls(spec, env) ? { ...rest, NODE_EXTRA_CA_CERTS: ca } : rest;
}

function mayOpenTls(spec: Pick<AgentSpec, 'kind'>, env: NodeJS.ProcessEnv): boolean {
  if (spec.kind === 'specialist') return envRaw('PARLEY_LLM_URL', env) !== undefined;
  if (spec.kind === 'console') return envRaw('PARLEY_OTLP_URL', env) !== undefined;
  return false;
}
