// npm run ejabberd -- start|stop|status|admin  (issue #2 §2)
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { closeApiAgent, credentialsFor, nodeConfig, nodeHost, provisionCore } from '../shared/ejabberd/index.js';
import {
  clusterStatus, describeHosts, readHosts, startCluster, stopCluster, ensureCertificate, exposure, exposureReport,
} from '../shared/ejabberd/operator.js';

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
    const nodes = await startCluster(cfg);
    await provisionCore(cfg);
    const hosts = readHosts(cfg);
    for (const st of nodes) {
      const n = nodeConfig(cfg, st.index, hosts);
      const h = nodeHost(st.index, hosts);
      console.log(`ejabberd ${st.node} running: c2s ${h.listen}:${n.c2sPort}, component ${n.componentPort} (rooms) ${n.agentsComponentPort} (agents) ${n.calendarsComponentPort} (calendars), http ${n.httpPort}${nodes.length > 1 ? `, dist ${h.ip.join('.')}:${cfg.distPort}` : ''} (${Date.now() - t0} ms)`);
    }
    if (nodes.length > 1) {
      console.log(`cluster of ${nodes.length}: ${(nodes[0]?.cluster ?? []).join(', ')}`);
      console.log(`hosts: ${describeHosts(cfg, hosts)}`);
    }
    console.log(`web admin: ${adminUrl()}  user admin@${cfg.domain}  (password: npm run ejabberd -- admin)`);
  });

program
  .command('stop')
  .description('stop the instance cleanly')
  .action(async () => {
    const wasUp = await stopCluster(cfg);
    console.log(wasUp ? 'ejabberd stopped' : 'ejabberd was not running');
  });

program
  .command('status')
  .description('what runs: ports, API, online agents')
  .action(async () => {
    const all = await clusterStatus(cfg);
    const mark = (b: boolean) => (b ? 'up' : 'down');
    const hosts = readHosts(cfg);
    for (const st of all) {
      const n = nodeConfig(cfg, st.index, hosts);
      const at = nodeHost(st.index, hosts).listen;
      console.log(`node ${st.node}: ${st.running ? 'running' : 'not running'}`);
      console.log(`  c2s       ${at}:${st.c2sPort}  ${mark(st.c2s)}`);
      console.log(`  component ${at}:${n.componentPort} (rooms), :${n.agentsComponentPort} (agents), :${n.calendarsComponentPort} (calendars)  ${mark(st.component)}`);
      console.log(`  http/api  ${at}:${n.httpPort}  ${mark(st.http)} / api ${mark(st.api)}`);
      if (all.length > 1) console.log(`  dist      ${nodeHost(st.index, hosts).ip.join('.')}:${cfg.distPort}`);
      if (st.cluster) console.log(`  cluster   ${st.cluster.join(', ')}`);
    }
    // Which kind of separate hosts the nodes have, and why (shared/ejabberd/hosts.ts).
    if (all.length > 1) console.log(`  hosts     ${describeHosts(cfg, hosts)}`);
    console.log(`  state     ${cfg.home}`);
    const st = all[0] as (typeof all)[number];
    if (st.running) {
      // Sessions are cluster-wide: any node lists every online account.
      console.log(`  online (${st.online.length}): ${st.online.join(', ') || '-'}`);
      console.log(`  web admin ${adminUrl()}`);
    }
    // 0: every node runs; 3: none; 4: some (a degraded cluster).
    const up = all.filter((x) => x.running).length;
    process.exitCode = up === all.length ? 0 : up === 0 ? 3 : 4;
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
