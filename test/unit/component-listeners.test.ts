// ejabberd_service gives a component that logs in a route for every host in its listener's
// `hosts`, so rooms.<domain>, agents.<domain> and calendars.<domain> each need a listener of their own (issue 14 §3:
// with one shared listener, the Registry's replies to virtual agents reached the rooms process).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import { renderConfig } from '../../shared/ejabberd/operator.js';

const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

interface Listener { port: number; ip: string; module: string; hosts?: Record<string, { password: string }> }

describe('ejabberd [component listeners] one host per XEP-0114 listener', () => {
  it('serves rooms.<domain> and agents.<domain> on their own ports, each with the component secret', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-listeners-'));
    try {
      const cfg = loadConfig({ PARLEY_HOME: home, PARLEY_DOMAIN: 'example.test' });
      const doc = yaml.load(fs.readFileSync(renderConfig(cfg, 'sekret'), 'utf8')) as { listen: Listener[] };
      const services = doc.listen.filter((l) => l.module === 'ejabberd_service');
      expect(services.map((l) => [l.port, l.ip, Object.keys(l.hosts ?? {})])).to.deep.equal([
        [cfg.componentPort, '127.0.0.1', ['rooms.example.test']],
        [cfg.agentsComponentPort, '127.0.0.1', ['agents.example.test']],
        [cfg.calendarsComponentPort, '127.0.0.1', ['calendars.example.test']],
      ]);
      for (const l of services) expect(Object.values(l.hosts ?? {}).map((h) => h.password)).to.deep.equal(['sekret']);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('puts the calendars listener two above the rooms one unless set', () => {
    expect(loadConfig({ PARLEY_HOME: '/tmp/p' }).calendarsComponentPort).to.equal(15277);
    expect(loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_COMPONENT_PORT: '16275' }).calendarsComponentPort).to.equal(16277);
    expect(loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_CALENDARS_COMPONENT_PORT: '17001' }).calendarsComponentPort).to.equal(17001);
  });

  it('puts the agents listener beside the rooms one unless set', () => {
    expect(loadConfig({ PARLEY_HOME: '/tmp/p' }).agentsComponentPort).to.equal(15276);
    expect(loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_COMPONENT_PORT: '16275' }).agentsComponentPort).to.equal(16276);
    expect(loadConfig({ PARLEY_HOME: '/tmp/p', PARLEY_COMPONENT_PORT: '16275', PARLEY_AGENTS_COMPONENT_PORT: '17000' }).agentsComponentPort).to.equal(17000);
  });
});
