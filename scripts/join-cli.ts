// npm run join -- --server HOST:PORT --token TOKEN [--home DIR]   (issue "Beyond one machine" §2)
// Makes this host an agent host of a Parley installation it shares nothing with but the network:
// from the single-use token the operator printed (`npm run enrol -- issue NAME`), it writes a
// state directory of its own (owner-only: the account's password, a key made here, the operator's
// DID and the core agents' DIDs), logs in, redeems the token with the Registry (ENROL, signed with
// the new key) and keeps the operator-signed credential it gets back. No file is copied by hand;
// the token is the only secret that travels, once.
import path from 'node:path';
import { Command } from 'commander';
import { makeEnvelope, newConversationId, type Envelope } from '../shared/acl/index.js';
import { envString, restrictFileModes } from '../shared/config/index.js';
import { ensureAgentIdentity } from '../shared/identity/agent-identity.js';
import {
  verifyCredential, decodeJoinToken, pinnedDids, operatorDidFile, signEnvelope,
} from '../shared/identity/index.js';
import { silentLogger } from '../shared/log/index.js';
import { identify } from '../shared/runtime/index.js';
import { ensurePrivateDir, SecretMap, secureStateDir, writePrivateFile } from '../shared/secrets/index.js';
import { clientTransport } from '../shared/transport/index.js';

const program = new Command('join')
  .description("Join this host to a Parley installation with the operator's single-use token (npm run enrol -- issue NAME)")
  .requiredOption('--server <host:port>', "the installation's XMPP client port, e.g. 192.168.1.10:15222")
  .requiredOption('--token <token>', 'the parley-join.v1.… token the operator printed (a secret: used once)')
  .option('--home <dir>', "this host's state directory (default $PARLEY_HOME or ./.parley)")
  .option('--timeout-ms <ms>', 'how long to wait for the Registry', '15000')
  .parse();
const o = program.opts<{ server: string; token: string; home?: string; timeoutMs: string }>();

async function main(): Promise<void> {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(o.server);
  if (!m) throw new Error(`--server must be HOST:PORT, got ${JSON.stringify(o.server)}`);
  const [host, port] = [m[1] as string, Number(m[2])];
  const t = decodeJoinToken(o.token.trim());
  if (t.expires_at <= Date.now()) throw new Error(`the token expired at ${new Date(t.expires_at).toISOString()}: ask the operator for a new one (npm run enrol -- issue)`);
  if (!t.password) throw new Error('the token carries no password (issued while ejabberd was down): ask the operator for a new one');
  restrictFileModes();
  const home = path.resolve(o.home ?? envString('PARLEY_HOME') ?? './.parley');
  ensurePrivateDir(home);
  secureStateDir(home);
  const account = t.jid.slice(0, t.jid.indexOf('@'));
  new SecretMap(path.join(home, 'secrets', 'accounts.json')).set(account, t.password);
  // A key made here, never seen by the operator's host: the credential will bind it.
  const identity = ensureAgentIdentity(home, account, t.jid);
  const pins = pinnedDids(home);
  for (const [jid, did] of Object.entries(t.pins ?? {})) pins.pin(jid, did, { replace: true });
  writePrivateFile(operatorDidFile(home), `${t.operator}\n`);

  const transport = clientTransport({ jid: t.jid, password: t.password, host, port, logger: silentLogger(), resource: 'join' });
  const answer = new Promise<Envelope>((resolve) => transport.onMessage((msg) => {
    try {
      const env = JSON.parse(msg.body ?? '') as Envelope;
      if (env.sender === 'Registry' && env.in_reply_to !== undefined) resolve(env);
    } catch {
      // not an envelope
    }
  }));
  await withTimeout(transport.start(), Number(o.timeoutMs), `cannot log in to ${o.server} as ${t.jid}`);
  try {
    const request = signEnvelope(makeEnvelope({
      performative: 'REQUEST', sender: identify(t.jid, t.domain).name, receiver: 'Registry', conversation_id: newConversationId(),
      content: { type: 'ENROL', token: t.secret, did: identity.did },
    }), identity);
    transport.send({ to: `registry@${t.domain}`, type: 'normal', id: request.reply_with, thread: request.conversation_id, body: JSON.stringify(request) });
    const reply = await withTimeout(answer, Number(o.timeoutMs), 'no answer from the Registry');
    const content = reply.content as { type?: string; credential?: unknown; reason?: string; detail?: string };
    if (reply.performative !== 'INFORM' || content.type !== 'ENROLLED') {
      throw new Error(`the Registry refused: ${content.reason ?? reply.performative}${content.detail ? ` (${content.detail})` : ''}`);
    }
    const check = verifyCredential(content.credential, t.operator, Date.now());
    if (!check.ok) throw new Error(`the credential does not verify with the operator's DID: ${check.detail}`);
    writePrivateFile(path.join(home, 'secrets', 'credentials', `${account}.json`), `${JSON.stringify(content.credential, null, 2)}\n`);
    console.log(`joined: ${t.jid} as ${t.role}, ${identity.did}, enrolled until ${new Date(check.credential.exp).toISOString()}`);
    console.log(`state directory: ${home} (owner-only)`);
    const name = account.replace(/^specialist-/, '');
    const envLine = `PARLEY_HOME=${home} PARLEY_DOMAIN=${t.domain} PARLEY_XMPP_HOST=${host} PARLEY_C2S_PORT=${port}`;
    console.log(t.role === 'specialist' ? `run it: ${envLine} node dist/agents/specialist/main.js --name ${name} --skills <skills>` : `run it: ${envLine} node dist/agents/calendar/main.js --person ${account.replace(/^calendar-/, '')}`);
  } finally {
    await transport.stop().catch(() => undefined);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    p.then((v) => (clearTimeout(timer), resolve(v)), (err: Error) => (clearTimeout(timer), reject(err)));
  });
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`join: ${err.message}`);
    process.exit(1);
  },
);
