// npm run session -- list | show ID | verify ID | delete ID
// The operator's view of the sessions agent's Coordination Sessions (OAP RFC 0001; docs/sessions.md),
// read from $PARLEY_HOME/data/sessions.sqlite through the service layer (shared/ops/sessions.ts,
// shared with the console). verify re-computes the §3.5 hash chain and names the first turn that
// does not fit (exit 1); delete is the operator's §6 data_delete.
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { deleteSession, listSessions, showSession, verifySession } from '../shared/ops/index.js';

const cfg = loadConfig();
const program = new Command('session').description('List, show, verify and delete Coordination Sessions');

program.command('list').description('one line per session: id, person JID (or -), status, version, convener')
  .action(() => {
    const rows = listSessions(cfg);
    if (rows.length === 0) console.log('no sessions (start one in chat: session start <title>)');
    for (const r of rows) console.log([r.id, r.on_behalf_of ?? '-', r.status, `v${r.state_version}`, r.convener, r.title ?? ''].join('\t'));
  });

program.command('show <id>').description('state, participants and the turn log of a session')
  .action((id: string) => {
    const { session: r, participants, turns } = showSession(cfg, id);
    console.log(`session ${r.id}  ${r.status}  state_version ${r.state_version}  schema ${r.state_schema}`);
    console.log(`convener ${r.convener}${r.on_behalf_of ? ` on behalf of ${r.on_behalf_of}` : ''}  created ${r.created_at}  expires ${r.expires_at}`);
    console.log('participants:');
    for (const p of participants) console.log(`  ${p.did}${p.name ? ` (${p.name})` : ''}  since ${p.admitted_at}`);
    console.log(`state: ${JSON.stringify(r.state, null, 2)}`);
    console.log('log:');
    for (const t of turns) console.log(`  ${t.seq}\t${t.turn_id}\t${t.op}\t${t.at}\t${t.actor}\t${t.hash.slice(0, 16)}…`);
  });

program.command('verify <id>').description('check the hash chain; names the first tampered turn (exit 1)')
  .action((id: string) => {
    const v = verifySession(cfg, id);
    if (!v.ok) {
      console.log(`TAMPERED ${id}: turn ${v.seq} (${v.turn_id}): ${v.problem}`);
      process.exitCode = 1;
      return;
    }
    console.log(`OK ${id}: ${v.turns} turns, head ${v.head?.turn_id ?? '-'} ${v.head?.hash ?? ''}`);
  });

program.command('delete <id>').description('delete a session\'s state, admission ledger and log (RFC 0001 §6)')
  .action((id: string) => console.log(`deleted ${id} (${deleteSession(cfg, id)} turns)`));

program.parseAsync().catch((err: Error) => {
  console.error(`session: ${err.message}`);
  process.exit(1);
});
