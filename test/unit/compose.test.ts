// docker-compose.yml (issue "Beyond one machine" §4): the check CI runs on it
// (scripts/check-compose.ts) passes on the repository's file and catches each kind of drift, and
// the one code change the file needs, ejabberd's client listener on the container network
// (PARLEY_BIND_ADDRESS), moves that listener only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config/index.js';
import { renderConfig } from '../../shared/ejabberd/operator.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { checkCompose, CodeIndex } from '../../scripts/check-compose.js';

const code = new CodeIndex();
const compose = fs.readFileSync(path.join(repoRoot(), 'docker-compose.yml'), 'utf8');

/** A valid minimal file with `extra` YAML appended under services. */
function fixture(extra = '', specialist = '    command: ["docker/specialist.sh", "http://ejabberd:15291/token"]\n    environment:\n      PARLEY_XMPP_HOST: ejabberd\n'): string {
  return [
    'services:',
    '  ejabberd:',
    '    command: ["docker/ejabberd.sh"]',
    '    environment: { PARLEY_HOME: /var/lib/parley, PARLEY_BIND_ADDRESS: 0.0.0.0 }',
    '    volumes: [parley-home:/var/lib/parley]',
    '  agents:',
    '    command: ["node", "dist/scripts/supervisor.js", "--specialists="]',
    '    network_mode: "service:ejabberd"',
    '    volumes: [parley-home:/var/lib/parley]',
    '  console:',
    '    command: node dist/agents/console/main.js',
    '  specialist:',
    specialist.trimEnd(),
    extra.trimEnd(),
    'volumes:',
    '  parley-home:',
  ].filter(Boolean).join('\n');
}

describe('docker-compose.yml [check] every command and variable exists in the code', () => {
  it("passes on the repository's docker-compose.yml", () => {
    expect(checkCompose(compose, code)).to.deep.equal([]);
  });

  it('a valid file has no problems', () => {
    expect(checkCompose(fixture(), code)).to.deep.equal([]);
  });

  it('refuses a command that is not in the code: a missing script, npm script, option, entry script', () => {
    const problems = checkCompose(fixture([
      '  a: { command: node dist/scripts/no-such-cli.js }',
      '  b: { command: npm run no-such-script }',
      '  c: { command: node dist/scripts/supervisor.js --no-such-option 1 }',
      '  d: { command: docker/no-such.sh }',
      '  e: { command: ./run-anything }',
      '  f: { command: node /etc/passwd.js }',
    ].join('\n')), code);
    expect(problems.join('\n')).to.match(/a\.command: dist\/scripts\/no-such-cli\.js has no source scripts\/no-such-cli\.ts/)
      .and.to.match(/b\.command: package\.json has no script "no-such-script"/)
      .and.to.match(/c\.command: dist\/scripts\/supervisor\.js has no option --no-such-option/)
      .and.to.match(/d\.command: docker\/no-such\.sh does not exist/)
      .and.to.match(/e\.command: unknown command "\.\/run-anything"/)
      .and.to.match(/f\.command: node must run a dist\/….js file/);
  });

  it('refuses an undeclared PARLEY_* variable, a bad value and a variable nothing reads', () => {
    const problems = checkCompose(fixture([
      '  a:',
      '    command: ["docker/ejabberd.sh"]',
      '    environment: { PARLEY_NO_SUCH: "1", PARLEY_C2S_PORT: "70000", PARLEY_BIND_ADDRESS: 10.0.0.1, PARLEY_MAM: maybe, HTTP_PROXY: x }',
    ].join('\n')), code);
    expect(problems.join('\n')).to.match(/a\.environment: PARLEY_NO_SUCH is not declared/)
      .and.to.match(/a\.environment: PARLEY_C2S_PORT must be a TCP port/)
      .and.to.match(/a\.environment: PARLEY_BIND_ADDRESS must be one of 127\.0\.0\.1, 0\.0\.0\.0/)
      .and.to.match(/a\.environment: PARLEY_MAM must be 1 or 0/)
      .and.to.match(/a\.environment: HTTP_PROXY is read neither by Parley/);
  });

  it("refuses specialists that mount the operator's volume or share its network namespace", () => {
    const problems = checkCompose(fixture('', [
      '    command: ["docker/specialist.sh", "http://ejabberd:15291/token"]',
      '    volumes: ["parley-home:/var/lib/parley"]',
      '    network_mode: "service:ejabberd"',
    ].join('\n')), code);
    expect(problems.join('\n')).to.match(/specialist mounts volume parley-home/)
      .and.to.match(/specialist shares a network namespace/);
  });

  it('refuses a file without the services the issue asks for, or pointing at a missing service', () => {
    const problems = checkCompose('services:\n  ejabberd:\n    command: ["docker/ejabberd.sh"]\n    network_mode: "service:nowhere"\n    depends_on: [gone]\n', code);
    expect(problems).to.include.members(['service agents is missing', 'service console is missing', 'service specialist is missing',
      'ejabberd.network_mode: no service nowhere', 'ejabberd.depends_on: no service gone']);
  });
});

describe('docker-compose.yml [bind] ejabberd listens on the container network only for clients', () => {
  it('PARLEY_BIND_ADDRESS=0.0.0.0 moves the c2s listener; the component port and HTTP API stay on loopback', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bind-'));
    try {
      const yml = (env: NodeJS.ProcessEnv) => fs.readFileSync(renderConfig(loadConfig({ PARLEY_HOME: home, ...env }), 'secret'), 'utf8');
      const ips = (text: string) => [...text.matchAll(/port: (\d+)\n\s+ip: "([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
      expect(ips(yml({}))).to.deep.equal(['15222 127.0.0.1', '15275 127.0.0.1', '15276 127.0.0.1', '15277 127.0.0.1', '15280 127.0.0.1']);
      expect(ips(yml({ PARLEY_BIND_ADDRESS: '0.0.0.0' }))).to.deep.equal(['15222 0.0.0.0', '15275 127.0.0.1', '15276 127.0.0.1', '15277 127.0.0.1', '15280 127.0.0.1']);
      // Only the two addresses the checks of a running instance can reach (they probe 127.0.0.1).
      expect(() => loadConfig({ PARLEY_HOME: home, PARLEY_BIND_ADDRESS: '192.168.1.5' })).to.throw(ConfigError, /PARLEY_BIND_ADDRESS must be one of/);
      expect(loadConfig({ PARLEY_HOME: home, PARLEY_XMPP_HOST: 'ejabberd' }).host).to.equal('ejabberd');
      expect(loadConfig({ PARLEY_HOME: home }).host).to.equal('127.0.0.1');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
