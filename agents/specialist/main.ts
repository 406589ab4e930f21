// The Specialist process: `node dist/agents/specialist/main.js --name math --experts arithmetic`.
// Answers REQUEST ASK_EXPERT (seed contract §2.3) with offline experts and keeps itself
// registered with the DF (docs/runtime.md §5). Wiring only: behaviour lives in the machines.
import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import { waitFor } from 'xstate';
import { loadTunables } from '../../shared/config/agents.js';
import { loadConfig } from '../../shared/config/index.js';
import { accountSecrets, assertLocalpart, ensureAccount } from '../../shared/ejabberd/accounts.js';
import { createAgent } from '../../shared/runtime/boot.js';
import { askExpertExchange, cfpExchange, Slots } from './exchange.js';
import { createExperts, EXPERT_NAMES } from './experts/index.js';
import { buildProfile, packageVersion } from './profile.js';
import { registrationMachine, type RegistrationEmitted } from './registration-machine.js';
import { DEFAULT_TERMS, parsePerExpert, termsFor } from './terms.js';

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const env = process.env;
const program = new Command('specialist')
  .description('A Parley specialist answering ASK_EXPERT with offline experts')
  .option('--name <name>', 'specialist name; the account is specialist-<name>', env.PARLEY_SPECIALIST_NAME || 'general')
  .option('--experts <list>', `comma list of experts (${EXPERT_NAMES.join(', ')}); default all`, env.PARLEY_SPECIALIST_EXPERTS || '')
  .option('--concurrency <n>', 'ASK_EXPERT in flight before REFUSE busy (PARLEY_SPECIALIST_CONCURRENCY)', positive)
  .option('--compute-timeout-ms <ms>', 'FAILURE TIMEOUT after this long (PARLEY_SPECIALIST_COMPUTE_MS)', positive, positive(env.PARLEY_SPECIALIST_COMPUTE_MS || '10000'))
  // Agora §4 OFFER terms for CFPs: a number, or per expert "2,time=0.5" (docs/acl_contract.md).
  .option('--cost <n>', `offer cost (PARLEY_SPECIALIST_COST; default ${DEFAULT_TERMS.cost})`, env.PARLEY_SPECIALIST_COST)
  .option('--eta-ms <ms>', `offer eta (PARLEY_SPECIALIST_ETA_MS; default ${DEFAULT_TERMS.etaMs})`, env.PARLEY_SPECIALIST_ETA_MS)
  .option('--ttl-ms <ms>', `how long an offer may be accepted (PARLEY_SPECIALIST_OFFER_TTL_MS; default ${DEFAULT_TERMS.ttlMs})`, env.PARLEY_SPECIALIST_OFFER_TTL_MS)
  .parse();
const opts = program.opts<{ name: string; experts: string; concurrency?: number; computeTimeoutMs: number; cost?: string; etaMs?: string; ttlMs?: string }>();

const config = loadConfig();
const tunables = loadTunables(env, config.domain);
const account = opts.name.startsWith('specialist-') ? opts.name : `specialist-${opts.name}`;
const { experts, terms } = (() => {
  try {
    assertLocalpart(account);
    const cost = parsePerExpert(opts.cost ?? '', DEFAULT_TERMS.cost, '--cost');
    const eta = parsePerExpert(opts.etaMs ?? '', DEFAULT_TERMS.etaMs, '--eta-ms', { integer: true });
    const ttl = parsePerExpert(opts.ttlMs ?? '', DEFAULT_TERMS.ttlMs, '--ttl-ms', { integer: true, min: 1 });
    return { experts: createExperts(opts.experts.split(',').map((s) => s.trim()).filter(Boolean)), terms: termsFor(cost, eta, ttl) };
  } catch (err) {
    return program.error(`error: ${(err as Error).message}`);
  }
})();
const concurrency = opts.concurrency ?? tunables.specialistConcurrency;

// `npm run spawn` starts specialists nobody provisioned: create the account on first start.
if (!accountSecrets(config).get(account)) await ensureAccount(config, account);

const { agent, logger, onShutdown } = createAgent({ account, config });
const slots = new Slots(concurrency);
agent.router.on('ASK_EXPERT', askExpertExchange({ experts, slots, computeMs: opts.computeTimeoutMs }));
// Open offers wait a round trip for ACCEPT/REJECT: the book is larger than the worker pool
// (PARLEY_SPECIALIST_MAX_OFFERS, default 16 × concurrency; bounded memory).
const offers = new Slots(Number(env.PARLEY_SPECIALIST_MAX_OFFERS) > 0 ? Number(env.PARLEY_SPECIALIST_MAX_OFFERS) : 16 * concurrency);
agent.router.on('AGORA_REQUEST', cfpExchange({ experts, slots, offers, computeMs: opts.computeTimeoutMs, terms }));
await agent.start();
logger.info({ jid: agent.self.jid, experts: experts.map((e) => e.name), concurrency, terms: experts.map((e) => ({ expert: e.name, ...terms(e.name) })) }, 'online');

const conversationId = `reg-${agent.name}-${randomUUID()}`;
const registration = agent.router.start(conversationId, registrationMachine, {
  self: agent.name,
  jid: agent.self.jid,
  profile: buildProfile({ jid: agent.self.jid, name: agent.name, version: packageVersion(), experts, maxConcurrent: concurrency, did: agent.signing?.did }),
  conversationId,
  heartbeatMs: tunables.heartbeatMs,
  retry: { initialMs: 500, maxMs: 10000 },
  deregisterTimeoutMs: 1500,
});
// The supervisor prints "ready" when it sees {msg: 'registered'} on stdout.
registration.on('registered', (e: RegistrationEmitted) => {
  if (e.type === 'registered') logger.info({ lease_ms: e.lease_ms, count: e.count, heartbeat_ms: tunables.heartbeatMs }, 'registered');
});

onShutdown(async () => {
  if (!agent.router.send(conversationId, { type: 'DEREGISTER' })) return;
  await waitFor(registration, (s) => s.status === 'done', { timeout: 2000 }).catch(() => logger.warn('deregister: no answer'));
});
