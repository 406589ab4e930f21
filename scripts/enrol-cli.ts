// npm run enrol -- issue NAME [--role R] [--did DID | --local] | list | revoke NAME
// (docs/architecture.md "Identities and trust"). A JID is an agent of a role only because the
// operator enrolled it here. `issue` prints a single-use, short-lived token that an agent on
// another host redeems once (ENROL to the Registry, with its DID; `npm run join -- --server …
// --token …`) for a credential signed by the operator key ($PARLEY_HOME/secrets/keys/operator.json);
// `--local` enrols the agent key of this state directory at once, `--did` a given DID. `revoke`
// takes effect on the agent's next message: the Registry refuses it and drops it from the
// directory, and no agent accepts work from it.
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { closeApiAgent, assertLocalpart, CORE_AGENTS, ensureAccount } from '../shared/ejabberd/index.js';
import { control as ejabberd } from '../shared/ejabberd/operator.js';
import { ensureAgentIdentity } from '../shared/identity/agent-identity.js';
import {
  pinnedDids, DEFAULT_TOKEN_TTL_MS, EnrolmentAuthority, ENROLLED_ROLES, type EnrolledRole,
  isEnrolledRole, encodeJoinToken,
} from '../shared/identity/index.js';

const cfg = loadConfig();
const authority = new EnrolmentAuthority(cfg.home);
const program = new Command('enrol').description('Enrol agents (operator only): tokens, credentials, revocation');

function accountOf(name: string): { account: string; jid: string } {
  const account = name.includes('@') ? name.slice(0, name.indexOf('@')) : name;
  assertLocalpart(account);
  return { account, jid: `${account}@${cfg.domain}` };
}

const iso = (ms: number) => new Date(ms).toISOString();

program
  .command('issue <name>')
  .description('enrol NAME: a single-use token for another host (default), or at once with --local / --did')
  .option('--role <role>', `the role: ${ENROLLED_ROLES.join(' | ')}`, 'specialist')
  .option('--did <did>', 'enrol this did:key now (no token)')
  .option('--local', "enrol the agent's key in this state directory now (created if missing)")
  .option('--ttl <minutes>', 'token lifetime in minutes', String(DEFAULT_TOKEN_TTL_MS / 60_000))
  .action(async (name: string, o: { role: string; did?: string; local?: boolean; ttl: string }) => {
    const { account, jid } = accountOf(name);
    if (!isEnrolledRole(o.role)) throw new Error(`--role must be one of ${ENROLLED_ROLES.join(', ')}`);
    const role: EnrolledRole = o.role;
    if (o.did || o.local) {
      const did = o.did ?? ensureAgentIdentity(cfg.home, account, jid).did;
      const c = authority.enrol(jid, did, role);
      console.log(`enrolled: ${jid} as ${role}, ${did}, until ${iso(c.exp)}`);
      return;
    }
    const ttlMin = Number(o.ttl);
    if (!Number.isFinite(ttlMin) || ttlMin <= 0 || ttlMin > 7 * 24 * 60) throw new Error('--ttl must be minutes in (0, 10080]');
    // The agent logs in with its own account: made (or kept) here when ejabberd runs.
    const running = (await ejabberd.status(cfg)).running;
    const password = running ? (await ensureAccount(cfg, account)).password : undefined;
    // The agent brings its own key: no key of this host is pinned for it (its enrolment binds it).
    pinnedDids(cfg.home).unpin(jid);
    const { secret, expires_at } = authority.issueToken(jid, role, ttlMin * 60_000);
    const pinned = pinnedDids(cfg.home);
    const pins = Object.fromEntries(CORE_AGENTS.filter((a) => a !== 'admin').map((a) => [`${a}@${cfg.domain}`, pinned.get(`${a}@${cfg.domain}`)]).filter((e): e is [string, string] => e[1] !== undefined));
    const token = encodeJoinToken({
      v: 1, jid, role, secret, operator: authority.operatorDid() as string, domain: cfg.domain, expires_at, ...(password ? { password } : {}), pins,
    });
    console.log(`token for ${jid} (${role}), single use, expires ${iso(expires_at)}:`);
    console.log(token);
    console.log(`on the other host: npm run join -- --server ${cfg.host}:${cfg.c2sPort} --token <token>`);
    if (!running) console.log('(ejabberd is not running: the account is made at the next issue with it running; this token carries no password)');
  });

program
  .command('list')
  .description('every enrolment (role, DID, state, expiry) and every token (never its secret)')
  .action(() => {
    const { enrolments, tokens } = authority.read();
    const now = Date.now();
    const rows = Object.entries(enrolments).sort(([a], [b]) => a.localeCompare(b));
    for (const [jid, r] of rows) {
      const state = r.revoked_at !== undefined ? `revoked ${iso(r.revoked_at)}` : r.credential.exp <= now ? 'expired' : `until ${iso(r.credential.exp)}`;
      console.log(`${jid} ${r.credential.role} ${r.credential.did} ${state}`);
    }
    if (rows.length === 0) console.log('(no enrolments)');
    for (const t of Object.values(tokens).sort((a, b) => a.created_at - b.created_at)) {
      const state = t.used_at !== undefined ? `used ${iso(t.used_at)}` : t.expires_at <= now ? 'expired' : `open until ${iso(t.expires_at)}`;
      console.log(`token ${t.jid} ${t.role} ${state}`);
    }
    console.log(`operator: ${authority.operatorDid() ?? '(no operator key yet: made at the first enrolment)'}`);
  });

program
  .command('revoke <name>')
  .description("revoke NAME's enrolment and open tokens; refused from its next message on")
  .action((name: string) => {
    const { jid } = accountOf(name);
    const found = authority.revoke(jid);
    console.log(found ? `revoked: ${jid} (the Registry refuses it and drops it from the directory from its next message on)` : `not enrolled: ${jid}`);
    if (!found) process.exitCode = 1;
  });

program.parseAsync().then(
  () => closeApiAgent(),
  (err: Error) => {
    console.error(`enrol: ${err.message}`);
    closeApiAgent();
    process.exit(1);
  },
);
