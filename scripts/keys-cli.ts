// npm run keys -- show NAME | rotate NAME | list: agent identities (docs/architecture.md
// "Identities and trust"). NAME is the agent's account: registry, coordinator, specialist-math.
// Rotation is the operator's deliberate act: a new Ed25519 key replaces secrets/keys/NAME.json and
// its DID replaces the JID's pin in secrets/pinned-dids.json, which is what lets the Registry
// accept the new key for a JID it had bound to the old one. Restart the agent afterwards.
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { jidOf } from '../shared/ejabberd/index.js';
import { isSigningAgent, rotateAgentIdentity } from '../shared/identity/agent-identity.js';
import { keyFile, loadIdentity, pinnedDids, pinnedDidsFile } from '../shared/identity/index.js';

const cfg = loadConfig();
const program = new Command('keys').description('Show and rotate the Ed25519 identities (did:key) of Parley agents');

function agentAccount(name: string): string {
  const account = name.toLowerCase();
  if (!isSigningAgent(account)) throw new Error(`${name} is not an agent account (people have no keys; try e.g. registry or specialist-math)`);
  return account;
}

program
  .command('show <name>')
  .description("print the agent's DID, its key file and the DID pinned for its JID")
  .action((name: string) => {
    const account = agentAccount(name);
    const jid = jidOf(cfg, account);
    const identity = loadIdentity(cfg.home, account);
    const pinned = pinnedDids(cfg.home).get(jid);
    console.log(`jid:    ${jid}`);
    console.log(`did:    ${identity?.did ?? '(no key yet: created at provisioning or first start)'}`);
    console.log(`key:    ${keyFile(cfg.home, account)}`);
    console.log(`pinned: ${pinned ?? '(not pinned)'}${identity && pinned && pinned !== identity.did ? '  ← differs from the key: run rotate' : ''}`);
    if (!identity) process.exitCode = 1;
  });

program
  .command('rotate <name>')
  .description('replace the key with a new one and re-pin its DID (restart the agent afterwards)')
  .action((name: string) => {
    const account = agentAccount(name);
    const jid = jidOf(cfg, account);
    const { previous, identity } = rotateAgentIdentity(cfg.home, account, jid);
    console.log(`rotated: ${jid}`);
    console.log(`old did: ${previous ?? '(none)'}`);
    console.log(`new did: ${identity.did}`);
    console.log(`restart ${account} so that it signs with the new key; agents re-read the pin on its next message` +
      (/^(specialist|calendar)-/.test(account) ? ' and the Registry rebinds it at the next REGISTER' : ''));
  });

program
  .command('list')
  .description('print every pinned JID → DID binding')
  .action(() => {
    const all = pinnedDids(cfg.home).all();
    for (const [jid, did] of Object.entries(all).sort(([a], [b]) => a.localeCompare(b))) console.log(`${jid} ${did}`);
    if (Object.keys(all).length === 0) console.log(`(nothing pinned in ${pinnedDidsFile(cfg.home)})`);
  });

program.parseAsync().catch((err: Error) => {
  console.error(`error: ${err.message}`);
  process.exitCode = 1;
});
