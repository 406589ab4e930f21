// npm run session -- list | show ID | verify ID | delete ID
// The operator's view of the Coordinator's Coordination Sessions (OAP RFC 0001; docs/sessions.md),
// read from $PARLEY_HOME/data/sessions.sqlite. verify re-computes the §3.5 hash chain and names
// the first turn that does not fit (exit 1); delete is the operator's §6 data_delete.
import fs from 'node:fs';
import { Command } from 'commander';
import { verifyChain } from '../agents/coordinator/sessions/chain.js';
import { sessionsDbFile, SessionStore } from '../agents/coordinator/sessions/store.js';
import { loadConfig } from '../shared/config/index.js';
import { canonical } from '../shared/identity/jcs.js';

const cfg = loadConfig();
const file = sessionsDbFile(cfg);
const program = new Command('session').description('List, show, verify and delete Coordination Sessions');

/** No store yet (the Coordinator never ran here): nothing to list, no session to show. */
const EMPTY = { list: () => [], get: () => undefined, participants: () => [], turns: () => [] } as unknown as SessionStore;

function withStore<T>(fn: (s: SessionStore) => T, readonly = true): T {
  if (!fs.existsSync(file)) {
    if (readonly) return fn(EMPTY);
    throw new Error(`no session store at ${file} (has the Coordinator run with this PARLEY_HOME?)`);
  }
  const store = new SessionStore(file, { readonly });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

program.command('list').description('one line per session: id, person JID (or -), status, version, convener')
  .action(() => withStore((s) => {
    const rows = s.list();
    if (rows.length === 0) console.log('no sessions (start one in chat: session start <title>)');
    for (const r of rows) console.log([r.id, r.on_behalf_of ?? '-', r.status, `v${r.state_version}`, r.convener, r.title ?? ''].join('\t'));
  }));

program.command('show <id>').description('state, participants and the turn log of a session')
  .action((id: string) => withStore((s) => {
    const r = s.get(id);
    if (!r) throw new Error(`no session ${id}`);
    console.log(`session ${r.id}  ${r.status}  state_version ${r.state_version}  schema ${r.state_schema}`);
    console.log(`convener ${r.convener}${r.on_behalf_of ? ` on behalf of ${r.on_behalf_of}` : ''}  created ${r.created_at}  expires ${r.expires_at}`);
    console.log('participants:');
    for (const p of s.participants(id)) console.log(`  ${p.did}${p.name ? ` (${p.name})` : ''}  since ${p.admitted_at}`);
    console.log(`state: ${JSON.stringify(r.state, null, 2)}`);
    console.log('log:');
    for (const t of s.turns(id)) console.log(`  ${t.seq}\t${t.turn_id}\t${t.op}\t${t.at}\t${t.actor}\t${t.hash.slice(0, 16)}…`);
  }));

program.command('verify <id>').description('check the hash chain; names the first tampered turn (exit 1)')
  .action((id: string) => withStore((s) => {
    const r = s.get(id);
    if (!r) throw new Error(`no session ${id}`);
    const check = verifyChain(id, s.turns(id));
    if (!check.ok) {
      console.log(`TAMPERED ${id}: turn ${check.seq} (${check.turn_id}): ${check.problem}`);
      process.exitCode = 1;
      return;
    }
    // The stored state must be the one the last state-bearing turn recorded.
    const last = s.turns(id).filter((t) => 'state_version' in t.body).at(-1);
    if (last && (last.body.state_version !== r.state_version || canonical(last.body.state) !== canonical(r.state))) {
      console.log(`TAMPERED ${id}: the stored state (v${r.state_version}) is not the one turn ${last.seq} (${last.turn_id}) recorded`);
      process.exitCode = 1;
      return;
    }
    console.log(`OK ${id}: ${check.turns} turns, head ${check.head?.turn_id ?? '-'} ${check.head?.hash ?? ''}`);
  }));

program.command('delete <id>').description('delete a session\'s state, admission ledger and log (RFC 0001 §6)')
  .action((id: string) => withStore((s) => {
    if (!s.get(id)) throw new Error(`no session ${id}`);
    console.log(`deleted ${id} (${s.delete(id)} turns)`);
  }, false));

program.parseAsync().catch((err: Error) => {
  console.error(`session: ${err.message}`);
  process.exit(1);
});
