// Idempotent provisioning (issue #2 §1): one account per agent and per person, each with a random
// password kept in $PARLEY_HOME/secrets/accounts.json (0600). Running it twice changes nothing.
import path from 'node:path';
import { type ParleyConfig, paths } from '../config/index.js';
import { CORE_ROLES } from '../contracts/index.js';
import { AGENT_ACCOUNT, ensureAgentIdentity, isSigningAgent } from '../identity/agent-identity.js';
import { SecretMap } from '../secrets/index.js';
import { adminRefusedHint, api, EjabberdApiError, isAuthRefusal } from './api.js';
import { hostOf } from './cluster.js';

/** The system's fixed accounts: the admin and the core agents (roles.ts); specialists, calendars and people are added at run time. */
export const CORE_AGENTS = ['admin', ...CORE_ROLES] as const;

const LOCALPART = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function assertLocalpart(name: string): void {
  if (!LOCALPART.test(name)) {
    throw new Error(`invalid account name ${JSON.stringify(name)}: use a-z, 0-9, '.', '_' or '-' (max 63)`);
  }
}

export function accountSecrets(cfg: ParleyConfig): SecretMap {
  return new SecretMap(path.join(paths(cfg).secrets, 'accounts.json'));
}

export function jidOf(cfg: ParleyConfig, name: string): string {
  return `${name}@${cfg.domain}`;
}

/**
 * Creates the account if missing; makes ejabberd's password match the stored one otherwise.
 * An agent account also gets its Ed25519 identity, pinned for its JID (agent-identity.ts).
 */
export async function ensureAccount(cfg: ParleyConfig, name: string): Promise<{ jid: string; password: string; created: boolean }> {
  assertLocalpart(name);
  if (isSigningAgent(name)) ensureAgentIdentity(cfg.home, name, jidOf(cfg, name));
  const password = accountSecrets(cfg).ensure(name);
  try {
    await api.register(cfg, name, password);
    return { jid: jidOf(cfg, name), password, created: true };
  } catch (err) {
    if (!(err instanceof EjabberdApiError) || !/already registered|conflict|exists/i.test(err.body)) throw err;
    await api.changePassword(cfg, name, password);
    return { jid: jidOf(cfg, name), password, created: false };
  }
}

export async function removeAccount(cfg: ParleyConfig, name: string): Promise<boolean> {
  assertLocalpart(name);
  const existed = (await api.registeredUsers(cfg)).includes(name);
  if (existed) await api.unregister(cfg, name);
  accountSecrets(cfg).delete(name);
  return existed;
}

/**
 * The core accounts; every agent's key is created and pinned here (the Registry's DID included).
 * When every one already has its stored password, ejabberd is asked once which accounts it has
 * (registered_users) and only a missing one is registered: registering and resetting each was 14
 * authenticated calls, ≈ 120 ms of every `npm start` (issue 15), each a SCRAM hash of the admin's
 * password in ejabberd and each password reset one more. A password changed behind Parley's back
 * is set again when its agent fails to start (repairOnFailedStart, shared/supervisor). Otherwise
 * (a first start, a lost password) each account is ensured as before; the calls go out together,
 * and each ensureAccount does its file work (key, pin, stored password) synchronously before its
 * first await, so those writes still happen one at a time.
 */
export async function provisionCore(cfg: ParleyConfig, extra: string[] = []): Promise<void> {
  const names = [...CORE_AGENTS, ...extra];
  const secrets = accountSecrets(cfg);
  const known = names.every((name) => secrets.get(name) !== undefined) ? await listedAccounts(cfg) : undefined;
  try {
    await Promise.all(names.map((name) => (known?.has(name) ? keepAccount(cfg, name) : ensureAccount(cfg, name))));
  } catch (err) {
    // Most often another installation's ejabberd on this one's ports (api.ts adminRefusedHint).
    if (!isAuthRefusal(err)) throw err;
    const e = err as EjabberdApiError;
    throw new Error(`${adminRefusedHint(cfg, hostOf(cfg).listen, cfg.httpPort)}. (ejabberd API ${e.command}: HTTP ${e.status} ${e.body})`);
  }
}

/** The accounts ejabberd lists; undefined when the admin is refused (ensureAccount then says why). */
async function listedAccounts(cfg: ParleyConfig): Promise<Set<string> | undefined> {
  try {
    return new Set(await api.registeredUsers(cfg));
  } catch (err) {
    if (isAuthRefusal(err)) return undefined;
    throw err;
  }
}

/** An account ejabberd has, with its stored password: only its key and pin are made sure of. */
async function keepAccount(cfg: ParleyConfig, name: string): Promise<void> {
  assertLocalpart(name);
  if (isSigningAgent(name)) ensureAgentIdentity(cfg.home, name, jidOf(cfg, name));
}

export function credentialsFor(cfg: ParleyConfig, name: string): { jid: string; password: string } {
  const password = accountSecrets(cfg).get(name);
  if (!password) throw new Error(`no stored password for ${name}: run \`npm run ejabberd -- start\` to provision`);
  return { jid: jidOf(cfg, name), password };
}

export const isAgentName = (name: string) => name === 'admin' || AGENT_ACCOUNT.test(name);

/** The secret ejabberd's component listeners and the component hosts share (render.ts puts it in ejabberd.yml). */
export function componentSecret(cfg: ParleyConfig): string {
  return new SecretMap(path.join(paths(cfg).secrets, 'ejabberd.json')).ensure('component');
}
