// A runtime Agent wired in-process the way boot.ts wires a process (client transport, SQLite
// telemetry under $PARLEY_HOME/telemetry), without boot's signal handlers: for the benchmark
// and for integration tests that need several agents in one process.
import type { ParleyConfig } from '../config/index.js';
import { ensureAccount } from '../ejabberd/index.js';
import { type Logger, silentLogger } from '../log/index.js';
import {
  Agent, groupCommitFor, telemetryFile, hasRoleBook, identify, useRoleBook, signingFor, MemoryTelemetry,
  SqliteTelemetry, type Telemetry,
} from '../runtime/index.js';
import { ensureAgentIdentity } from '../identity/agent-identity.js';
import { EnrolmentAuthority, type EnrolledRole, installationRoster } from '../identity/index.js';
import { clientTransport, type XmppTransport } from '../transport/index.js';

export interface RuntimeAgentOptions {
  telemetry?: 'sqlite' | 'memory';
  logger?: Logger;
  resource?: string;
  /** The role to enrol the account as (the bench plays the operator's provisioning). */
  enrolAs?: EnrolledRole;
}

export interface RuntimeAgent {
  agent: Agent;
  transport: XmppTransport;
  telemetry: Telemetry;
  telemetryPath?: string;
}

/** Creates (does not start) an Agent for `account`, provisioning the account if needed. */
export async function runtimeAgent(cfg: ParleyConfig, account: string, opts: RuntimeAgentOptions = {}): Promise<RuntimeAgent> {
  const { jid, password } = await ensureAccount(cfg, account);
  if (opts.enrolAs) new EnrolmentAuthority(cfg.home).ensureEnrolled(jid, ensureAgentIdentity(cfg.home, account, jid).did, opts.enrolAs);
  const roster = installationRoster(cfg.home);
  if (!hasRoleBook()) useRoleBook(roster); // one installation per process, as in createAgent (tests install their own first)
  const logger = opts.logger ?? silentLogger();
  const name = identify(jid, cfg.domain).name;
  const transport = clientTransport({ jid, password, host: cfg.host, port: cfg.c2sPort, logger, resource: opts.resource ?? `agent-${process.pid}` });
  const telemetryPath = opts.telemetry === 'memory' ? undefined : telemetryFile(cfg, name);
  const telemetry = telemetryPath ? new SqliteTelemetry(telemetryPath, name) : new MemoryTelemetry();
  // Signed like every agent unless PARLEY_SIGNING=0 (the benchmark's on/off comparison).
  const agent = new Agent({ jid, domain: cfg.domain, transport, logger, telemetry, signing: signingFor(cfg, account, { roster }) });
  // The replay ledger committed once per inbound burst, as every agent process's (boot.ts).
  groupCommitFor(transport, agent);
  return { agent, transport, telemetry, ...(telemetryPath ? { telemetryPath } : {}) };
}
