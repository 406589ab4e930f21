// Renders ejabberd/*.tmpl into $PARLEY_HOME/ejabberd/etc (issue #2 §1): the project's own
// instance, configured from the environment, never from /etc.
import fs from 'node:fs';
import path from 'node:path';
import { type ParleyConfig, paths } from '../config/index.js';
import { CORE_ROLES } from '../contracts/index.js';
import { repoRoot } from '../runtime/repo-root.js';
import { clustered, erlWrapper, inetrcHosts, nodeHost, nodeName } from './cluster.js';
import { readHosts } from './hosts.js';
import { ensureCertificate, exposure, exposureYaml, installCertificate, uploadUrl } from './expose.js';

const MAM_BLOCK = `  mod_mam:
    # mnesia is the only backend Debian's build has here; fine for a person's history, slow
    # under agent load (facts.md), hence off by default.
    db_type: mnesia
    assume_mam_usage: true
    default: always`;

export { nodeName };

/**
 * PARLEY_AGENTS_SHARDS > 1: several specialist hosts share agents.<domain>. ejabberd 23.01
 * (ejabberd_router:balancing_route, ejabberd_router_mnesia:register_route) then keeps
 * `component_number` slots for the domain, gives each connecting component the first free one, and
 * sends a stanza to slot phash2(bare destination JID, N) + 1: an agent's stanzas always reach the
 * same slot, and are dropped without an error while nobody holds it. Without domain_balancing it
 * would pick a connection at random per stanza. `component_number` is required (no default) and
 * must be 2..1000.
 */
export function domainBalancingYaml(cfg: Pick<ParleyConfig, 'domain' | 'agentsShards'>): string {
  if (cfg.agentsShards <= 1) return '';
  if (cfg.agentsShards > 1000) throw new Error(`PARLEY_AGENTS_SHARDS: ejabberd balances at most 1000 components, got ${cfg.agentsShards}`);
  return [
    '# Specialist hosts sharing agents.<domain>, each agent sticky to one (PARLEY_AGENTS_SHARDS).',
    'domain_balancing:',
    `  "agents.${cfg.domain}":`,
    '    type: bare_destination',
    `    component_number: ${cfg.agentsShards}`,
    '',
  ].join('\n');
}

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/{{([A-Z0-9_]+)}}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`ejabberd template: no value for {{${key}}}`);
    return v;
  });
}

export function renderConfig(cfg: ParleyConfig, componentSecret: string, env: NodeJS.ProcessEnv = process.env): string {
  const p = paths(cfg);
  for (const dir of [p.etc, p.spool, p.logs, p.run]) fs.mkdirSync(dir, { recursive: true });
  const exposed = exposure(cfg, env);
  if (exposed) ensureCertificate(cfg, exposed);
  const tls = exposureYaml(exposed, exposed ? installCertificate(cfg, exposed) : '');
  const tmplDir = path.join(repoRoot(), 'ejabberd');
  const hosts = clustered(cfg) ? readHosts(cfg) : undefined;
  const host = nodeHost(cfg.node, hosts);
  const inNetns = hosts?.mode === 'netns' && cfg.node > 1;
  const values: Record<string, string> = {
    DOMAIN: cfg.domain,
    C2S_PORT: String(cfg.c2sPort),
    // A node in its own namespace listens on that namespace's address (0.0.0.0 there would be the same).
    C2S_IP: inNetns ? host.listen : cfg.bindAddress,
    LISTEN_IP: host.listen,
    COMPONENT_PORT: String(cfg.componentPort),
    AGENTS_COMPONENT_PORT: String(cfg.agentsComponentPort),
    CALENDARS_COMPONENT_PORT: String(cfg.calendarsComponentPort),
    HTTP_PORT: String(cfg.httpPort),
    DIST_PORT: String(cfg.distPort),
    COMPONENT_SECRET: componentSecret,
    OFFLINE_LIMIT: String(cfg.offlineLimit),
    LOGLEVEL: cfg.logLevel,
    MAM_BLOCK: cfg.mam ? MAM_BLOCK : '',
    NODE: nodeName(cfg),
    DIST_IP: `{${host.ip.join(',')}}`,
    // Agents reach a namespaced node from the bridge's address: as trusted as loopback (never banned).
    CLUSTER_ACL: hosts?.mode === 'netns' ? `      - ${hosts.subnet}.0/24\n` : '',
    // A clustered node runs erl through etc/erl, which points it at the cluster's cookie (cluster.ts).
    CLUSTER_BLOCK: clustered(cfg) ? `ERL=${path.join(p.etc, 'erl')}` : '',
    RUN_DIR: p.run,
    EXPOSED_LISTENERS: tls.listeners,
    UPLOAD_URL: uploadUrl(cfg, exposed),
    UPLOAD_DIR: path.join(p.spool, 'upload'),
    CERTFILES: tls.certfiles,
    DOMAIN_BALANCING: domainBalancingYaml(cfg),
    // The core agents' accounts (shared/contracts/roles.ts), for the `agents` ACL.
    CORE_AGENTS: CORE_ROLES.join('|'),
  };
  const yml = fill(fs.readFileSync(path.join(tmplDir, 'ejabberd.yml.tmpl'), 'utf8'), values);
  const ctl = fill(fs.readFileSync(path.join(tmplDir, 'ejabberdctl.cfg.tmpl'), 'utf8'), values);
  // The yml holds the component secret: readable by the owner and ejabberd's group only.
  fs.writeFileSync(path.join(p.etc, 'ejabberd.yml'), yml, { mode: 0o640 });
  fs.chmodSync(path.join(p.etc, 'ejabberd.yml'), 0o640);
  fs.writeFileSync(path.join(p.etc, 'ejabberdctl.cfg'), ctl, { mode: 0o640 });
  // inetrc: the first entry for a name wins, so the nodes' hosts go before the template's `localhost`.
  const [lookup, ...rest] = fs.readFileSync(path.join(tmplDir, 'inetrc'), 'utf8').split(/(?<=\n)/);
  fs.writeFileSync(path.join(p.etc, 'inetrc'), [lookup, inetrcHosts(cfg, hosts), ...rest].join(''));
  if (clustered(cfg)) fs.writeFileSync(path.join(p.etc, 'erl'), erlWrapper(cfg), { mode: 0o750 });
  return path.join(p.etc, 'ejabberd.yml');
}
