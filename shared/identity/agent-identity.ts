// An agent's identity at provisioning (docs/architecture.md "Identities and trust"): its Ed25519
// key in $PARLEY_HOME/secrets/keys/<account>.json and its did:key pinned for its JID in
// secrets/pinned-dids.json, which every agent of the installation reads. People get no key:
// only the Presenter signs on their behalf.
import { CORE_ROLES } from '../contracts/index.js';
import type { Identity } from './keys.js';
import { loadIdentity, loadOrCreateIdentity, pinnedDids, replaceIdentity } from './keystore.js';

/** Agent account localparts: the core agents (roles.ts) and the prefixes of enrolled and test agents. */
export const AGENT_ACCOUNT = new RegExp(`^(${CORE_ROLES.join('|')})$|^(specialist|calendar|bench|agent)-`);

/** Account localparts that are agents (sign and verify); admin and people are not. */
export function isSigningAgent(localpart: string): boolean {
  return AGENT_ACCOUNT.test(localpart);
}

export class PinnedKeyConflict extends Error {
  constructor(jid: string, name: string) {
    super(`${jid} is pinned to another DID than secrets/keys/${name}.json holds; ` +
      `if the key was changed on purpose run \`npm run keys -- rotate ${name}\``);
    this.name = 'PinnedKeyConflict';
  }
}

/** Loads (or creates on first use) the identity of `name` and pins its DID for `jid`. Idempotent. */
export function ensureAgentIdentity(home: string, name: string, jid: string): Identity {
  const identity = loadOrCreateIdentity(home, name);
  const pins = pinnedDids(home);
  if (pins.get(jid) === identity.did) return identity; // the common case: no lock, no write
  try {
    pins.pin(jid, identity.did);
  } catch (err) {
    if (/already pinned/.test((err as Error).message)) throw new PinnedKeyConflict(jid, name);
    throw err;
  }
  return identity;
}

/** Operator key rotation: a new key for `name`, pinned for `jid` in place of the old one. */
export function rotateAgentIdentity(home: string, name: string, jid: string): { previous?: string; identity: Identity } {
  const previous = loadIdentity(home, name)?.did ?? pinnedDids(home).get(jid);
  const identity = replaceIdentity(home, name);
  pinnedDids(home).pin(jid, identity.did, { replace: true });
  return { ...(previous ? { previous } : {}), identity };
}
