// Test identities (issue "Signed envelopes"): envelopes hand-crafted by tests are signed like an
// agent's. Unit tests use deterministic in-memory keys per JID (testIdentity) and a trust store
// that binds every agent JID of the test domain to its test key; integration tests use the real
// keys of the instance's $PARLEY_HOME (provisioning created and pinned them).
import { createHash } from 'node:crypto';
import type { Envelope } from '../../shared/acl/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import { ensureAgentIdentity } from '../../shared/identity/agent-identity.js';
import {
  createIdentity, type Identity, signEnvelope, type DidResolver, EnrolmentAuthority,
} from '../../shared/identity/index.js';
import { identify, type RoleBook, useRoleBook, Signing, type SigningOptions } from '../../shared/runtime/index.js';

const cache = new Map<string, Identity>();
const bareOf = (jid: string) => jid.split('/')[0]?.toLowerCase() ?? jid;

/** The same key for the same JID in every test (seed = SHA-256 of the bare JID). */
export function testIdentity(jid: string): Identity {
  const key = bareOf(jid);
  let id = cache.get(key);
  if (!id) {
    id = createIdentity(new Uint8Array(createHash('sha256').update(`parley-test-key:${key}`).digest()));
    cache.set(key, id);
  }
  return id;
}

/**
 * Tests' stand-in for an operator's enrolment: `specialist-*` and `calendar-*` accounts of the
 * test domain are enrolled agents of that role (production never derives roles from names; the
 * hooks install it for the test process only, and tests of enrolment install their own book).
 */
export const testRoles: RoleBook = {
  roleOf(jid) {
    const local = jid.slice(0, jid.indexOf('@'));
    return local.startsWith('specialist-') ? 'specialist' : local.startsWith('calendar-') ? 'calendar' : undefined;
  },
};

/** Runs `fn` with `roles` as the process's RoleBook, restoring the previous one. */
export function withRoleBook<T>(roles: RoleBook | undefined, fn: () => T): T {
  const previous = useRoleBook(roles);
  try {
    return fn();
  } finally {
    useRoleBook(previous);
  }
}

/** Binds every agent JID of `domain` to its test key; people, admin and foreign JIDs stay unknown. */
export function testTrust(domain: string): DidResolver & { learned: Map<string, string> } {
  const learned = new Map<string, string>();
  return {
    learned,
    didOf(jid) {
      const role = identify(jid, domain).role;
      if (learned.has(bareOf(jid))) return { did: learned.get(bareOf(jid)) as string, source: 'learned' };
      return ['person', 'admin', 'foreign'].includes(role) ? undefined : { did: testIdentity(jid).did, source: 'pinned' };
    },
    learn(jid, did) {
      learned.set(bareOf(jid), did);
      return true;
    },
  };
}

/** A Signing for a unit-test agent: its test key, the test trust store. */
export function testSigning(jid: string, domain: string, opts: Partial<SigningOptions> = {}): Signing {
  return new Signing({ identity: testIdentity(jid), trust: testTrust(domain), domain, ...opts });
}

/** `envelope` signed with the test key of `jid` (timestamp kept). */
export function signAs<E extends Envelope>(jid: string, envelope: E): E {
  return signEnvelope(envelope, testIdentity(jid));
}

/**
 * `envelope` signed with the real key of agent account `account` in an instance's home; a
 * specialist-* or calendar-* account is enrolled as that role first (the test plays the operator's
 * provisioning; an attacker's account is made with ensureAccount and a key of its own instead).
 */
export function signWithAccount<E extends Envelope>(cfg: ParleyConfig, account: string, envelope: E): E {
  return signEnvelope(envelope, enrolTestAgent(cfg, account));
}

/** The key of agent account `account` in an instance's home; specialist-* and calendar-* are enrolled as such (the test is the operator). */
export function enrolTestAgent(cfg: ParleyConfig, account: string): Identity {
  const jid = `${account}@${cfg.domain}`;
  const identity = ensureAgentIdentity(cfg.home, account, jid);
  const role = testRoles.roleOf(jid);
  if (role === 'specialist' || role === 'calendar') new EnrolmentAuthority(cfg.home).ensureEnrolled(jid, identity.did, role);
  return identity;
}
