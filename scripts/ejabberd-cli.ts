// npm run ejabberd -- start|stop|status|admin  (issue #2 §2)
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { closeApiAgent } from '../shared/ejabberd/api.js';
import { credentialsFor, provisionCore } from '../shared/ejabberd/accounts.js';
import * as ejabberd from '../shared/ejabberd/control.js';
import { ensureCertificate, exposure, exposureReport } from '../shared/ejabberd/expose.js';

const cfg = loadConfig();
const program = new Command('ejabberd').description("Run the project's own ejabberd from $PARLEY_HOME");

function adminUrl(): string {
  return `http://127.0.0.1:${cfg.httpPort}/admin/`;
}

program
  .command('start')
  .description('render the config, start ejabberd, wait for its ports, provision the agent accounts')
  .action(async () => {
    const t0 = Date.now();
    const st = await ejabberd.start(cfg);
    await provisionCore(cfg);
    console.log(`ejabberd ${st.node} running: c2s 127.0.0.1:${cfg.c2sPort}, component ${cfg.componentPort}, http ${cfg.httpPort} (${Date.now() - t0} ms)`);
    console.log(`web admin: ${adminUrl()}  user admin@${cfg.domain}  (password: npm run ejabberd -- admin)`);
  });

program
  .command('stop')
  .description('stop the instance cleanly')
  .action(async () => {
    const wasUp = await ejabberd.stop(cfg);
    console.log(wasUp ? 'ejabberd stopped' : 'ejabberd was not running');
  });

program
  .command('status')
  .description('what runs: ports, API, online agents')
  .action(async () => {
    const st = await ejabberd.status(cfg);
    const mark = (b: boolean) => (b ? 'up' : 'down');
    console.log(`node ${st.node}: ${st.running ? 'running' : 'not running'}`);
    console.log(`  c2s       127.0.0.1:${cfg.c2sPort}  ${mark(st.c2s)}`);
    console.log(`  component 127.0.0.1:${cfg.componentPort}  ${mark(st.component)}`);
    console.log(`  http/api  127.0.0.1:${cfg.httpPort}  ${mark(st.http)} / api ${mark(st.api)}`);
    console.log(`  state     ${cfg.home}`);
    if (st.running) {
      console.log(`  online (${st.online.length}): ${st.online.join(', ') || '-'}`);
      console.log(`  web admin ${adminUrl()}`);
    }
    process.exitCode = st.running ? 0 : 3;
  });

program
  .command('admin')
  .description("print the web admin's URL and credentials (from the 0600 secrets file)")
  .action(() => {
    const { jid, password } = credentialsFor(cfg, 'admin');
    console.log(`url: ${adminUrl()}`);
    console.log(`user: ${jid}`);
    console.log(`password: ${password}`);
    // Reaching Parley from another device: where, and the fingerprint to pin (shared/ejabberd/expose.ts).
    const exposed = exposure(cfg);
    if (!exposed) console.log('exposed: no (every listener on 127.0.0.1; set PARLEY_EXPOSE_ADDRESS to let people connect from other devices)');
    else {
      ensureCertificate(cfg, exposed);
      for (const line of exposureReport(cfg, exposed)) console.log(line);
    }
  });

program.parseAsync().then(
  () => closeApiAgent(),
  (err: Error) => {
    console.error(`ejabberd: ${err.message}`);
    closeApiAgent();
    process.exit(1);
  },
);
