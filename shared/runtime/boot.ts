// Process wiring shared by every agent's main.ts: config, credentials, logger, telemetry,
// transport, Agent, and a clean shutdown on SIGTERM/SIGINT. Roles add their exchanges.
import { c2sEndpoints, credentialsFor } from '../ejabberd/index.js';
import path from 'node:path';
import { envFlag, envString, loadConfig, type ParleyConfig, paths } from '../config/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { clientTransport, type XmppTransport } from '../transport/index.js';
import { Agent, type AgentOptions } from './agent.js';
import { ensureAgentIdentity } from '../identity/agent-identity.js';
import {
  EnrolmentAuthority, type EnrolledRole, installationRoster, joinedOperatorDid, type Roster,
} from '../identity/index.js';
import { identify, jidOfName, useRoleBook } from './names.js';
import { RateLimiter, rateLimitFromEnv } from './rate-limit.js';
import { signingFor } from './signing.js';
import { SqliteTelemetry } from './telemetry.js';
import { ExchangeStore, GroupCommit, type Grouped } from '../store/index.js';
import { onProcessEnd } from './process-end.js';

/**
 * Group commit (issue 15; shared/store/group-commit.ts): one transaction per inbound burst over
 * the exchange store (if any) and then the replay ledger (a durable role's ledger lives in its
 * exchange store's file: both are one transaction, replay-ledger.ts `within`); acks and sends
 * wait for it (transport/burst.ts). PARLEY_GROUP_COMMIT=0: none. Also the bench's in-process agents.
 */
export function groupCommitFor(transport: XmppTransport, agent: Agent, store?: ExchangeStore): GroupCommit | undefined {
  if (!envFlag('PARLEY_GROUP_COMMIT')) return undefined;
  const group = new GroupCommit(store ? [store.group()] : [], agent.signing?.ledger?.group());
  transport.useGroupCommit(group);
  return group;
}

export interface BootOptions {
  /** Account localpart: presenter, coordinator, specialist-math, … */
  account: string;
  readsChat?: boolean;
  onChat?: AgentOptions['onChat'];
  persist?: AgentOptions['persist'];
  /** Durable role (Coordinator, Presenter, specialists, calendars): exchange snapshots and the inbound ledger in SQLite (docs/runtime.md "Durability"). */
  durable?: boolean;
  config?: ParleyConfig;
  /** Content kinds accepted from a JID with no DID binding yet (the Registry: ENROL). */
  firstUse?: string[];
  /**
   * The role this process is an agent of, on the operator's host (specialist and calendar mains):
   * enrolled here at provisioning unless the operator revoked it (docs/architecture.md
   * "Identities and trust"). Without the operator key (another host) nothing is enrolled here.
   */
  enrolAs?: EnrolledRole;
  /** Agents (names) this one sends directed presence to when online: they see it go (client.ts presenceTo). */
  presenceTo?: string[];
}

export interface Booted {
  agent: Agent;
  config: ParleyConfig;
  logger: Logger;
  /** Who is an enrolled agent of which role (also installed as the process's RoleBook). */
  roster: Roster;
  /** The durable role's store ($PARLEY_HOME/data/<name>-exchanges.sqlite); restore from it before agent.start(). */
  store?: ExchangeStore;
  /** Registers work to do before the transport stops (deregister, flush). */
  onShutdown(fn: () => Promise<void> | void): void;
  /** Another file the handlers write commits with each inbound burst (group commit; PARLEY_GROUP_COMMIT=0: nothing). */
  groupWith(part: Grouped): void;
}

export function telemetryFile(cfg: ParleyConfig, name: string): string {
  return path.join(paths(cfg).telemetry, `${name}.sqlite`);
}

export function exchangeStoreFile(cfg: ParleyConfig, name: string): string {
  return path.join(paths(cfg).data, `${name.toLowerCase()}-exchanges.sqlite`);
}

export function createAgent(opts: BootOptions): Booted {
  const config = opts.config ?? loadConfig();
  const { jid, password } = credentialsFor(config, opts.account);
  const name = identify(jid, config.domain).name;
  const rateLimit = rateLimitFromEnv(process.env);
  const logger = createLogger(name);
  const roster = installationRoster(config.home);
  useRoleBook(roster);
  if (opts.enrolAs) enrolLocally(config, opts.account, jid, opts.enrolAs, logger);
  // One fixed resource per account (PARLEY_RESOURCE, default "parley"): a restarted process takes
  // over the session its predecessor left waiting for XEP-0198 resumption, and with it the
  // stanzas queued there (a new resource would leave them to bounce after resume_timeout).
  const resource = envString('PARLEY_RESOURCE') as string;
  // The agent that writes to people asks for the server's ack right after each burst: a line the
  // server had routed but not yet acknowledged when it died is sent again, and a person's client
  // shows a copy as a second answer (issue "Keep every conversation through any single crash").
  // In a cluster (PARLEY_EJABBERD_NODES) the agent starts on the node its name hashes to and fails over to the others.
  const transport = clientTransport({ jid, password, host: config.host, port: config.c2sPort, endpoints: c2sEndpoints(config), logger, resource, ...(opts.readsChat ? { ackDebounceMs: 0 } : {}),
    ...(opts.presenceTo ? { presenceTo: opts.presenceTo.map((n) => jidOfName(n, config.domain)) } : {}) });
  // PARLEY_DURABLE=0: no snapshots, no ledger (benchmark comparisons; a crash then loses conversations).
  const store = opts.durable && envFlag('PARLEY_DURABLE') ? new ExchangeStore(exchangeStoreFile(config, name)) : undefined;
  const agent = new Agent({
    jid,
    domain: config.domain,
    transport,
    logger,
    telemetry: new SqliteTelemetry(telemetryFile(config, name), name),
    readsChat: opts.readsChat,
    onChat: opts.onChat,
    persist: opts.persist ?? store,
    peerResource: resource,
    // The key is created and pinned here if provisioning did not (e.g. `npm run spawn`).
    signing: signingFor(config, opts.account, { roster, ...(opts.firstUse ? { firstUse: opts.firstUse } : {}), ...(store ? { ledgerWithin: store.connection } : {}) }),
    // Agora §5 429 per sender DID (PARLEY_RATE_LIMIT_PER_S / _BURST; 0 = off).
    ...(rateLimit ? { rateLimit: new RateLimiter(rateLimit) } : {}),
  });
  const group = groupCommitFor(transport, agent, store);
  const hooks: Array<() => Promise<void> | void> = [];
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    for (const h of hooks) await Promise.resolve(h()).catch((err: Error) => logger.warn({ err: err.message }, 'shutdown hook failed'));
    await agent.stop().catch(() => undefined);
    store?.markCleanStop(); // the socket was flushed: nothing to resend at the next start
    store?.close();
    process.exit(0);
  };
  onProcessEnd(logger, shutdown);
  return { agent, config, logger, roster, ...(store ? { store } : {}), onShutdown: (fn) => hooks.push(fn), groupWith: (part) => group?.add(part) };
}

/** Provisioning on the operator's host: the agent's key, and its enrolment as `role`. */
function enrolLocally(config: ParleyConfig, account: string, jid: string, role: EnrolledRole, logger: Logger): void {
  const authority = new EnrolmentAuthority(config.home);
  if (authority.operatorDid() === undefined && joinedOperatorDid(config.home)) return; // another host: its credential came from a token (npm run join)
  const identity = ensureAgentIdentity(config.home, account, jid);
  const r = authority.ensureEnrolled(jid, identity.did, role);
  if (r.revoked) logger.error({ jid }, `${jid} is revoked: the Registry refuses it until the operator runs \`npm run enrol -- issue ${account} --role ${role}\``);
}
