// Configuration in one place (issue "One house a newcomer can read" §2): every PARLEY_* variable
// the code names is declared in shared/config/variables.ts, read only through shared/config/env.ts,
// documented in the README (generated), and a bad value is a clear error, never a NaN delay.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  loadTunables, ConfigError, envFlag, envList, envNumber, envString, loadConfig, isDeclared,
  VARIABLES,
} from '../../shared/config/index.js';
import { configDocs, withConfigDocs } from '../../shared/config/docs.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { busyRetryFrom } from '../../agents/coordinator/busy-wait.js';
import { rateLimitFromEnv } from '../../shared/runtime/index.js';

/** Every .ts file under the product's source folders (skills are separate packages, run sandboxed). */
function sources(): Array<{ file: string; text: string }> {
  const root = repoRoot();
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.c?ts$/.test(e.name) && !e.name.endsWith('.gen.ts')) out.push({ file: path.relative(root, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  for (const d of ['agents', 'shared', 'scripts']) walk(path.join(root, d));
  return out;
}

describe('Config [variables] one declaration per PARLEY_* variable, read in one place', () => {
  const files = sources();

  it('declares every PARLEY_* name the code mentions', () => {
    const undeclared = new Set<string>();
    for (const { file, text } of files) {
      for (const m of text.matchAll(/PARLEY_[A-Z0-9_]*[A-Z0-9]/g)) if (!isDeclared(m[0])) undeclared.add(`${m[0]} (${file})`);
    }
    expect([...undeclared]).to.deep.equal([]);
  });

  it('reads them only through shared/config (no process.env.PARLEY_* elsewhere)', () => {
    const direct = files
      .filter(({ file }) => !file.startsWith(path.join('shared', 'config')))
      .flatMap(({ file, text }) => [...text.matchAll(/env(\.PARLEY_[A-Z0-9_]+\b|\[['"]PARLEY_[A-Z0-9_]+['"]\])(?!\s*=[^=])/g)].map((m) => `${file}: ${m[0]}`));
    expect(direct).to.deep.equal([]);
  });

  it('keeps the README tables generated from the declarations (npm run gen:config-docs)', () => {
    const readme = fs.readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
    expect(withConfigDocs(readme), 'README markers present').to.be.a('string');
    expect(readme).to.contain(configDocs());
    for (const name of Object.keys(VARIABLES)) expect(readme).to.contain(`\`${name}\``);
  });
});

describe('Config [values] a bad value is a clear error at start, never a NaN', () => {
  it('refuses non-numbers, negatives, zero delays, fractions and ports out of range, naming the variable', () => {
    const cases: Array<[NodeJS.ProcessEnv, () => unknown, RegExp]> = [
      [{ PARLEY_RESULT_TIMEOUT_MS: 'soon' }, () => loadTunables({ PARLEY_RESULT_TIMEOUT_MS: 'soon' }), /PARLEY_RESULT_TIMEOUT_MS must be milliseconds > 0, got "soon"/],
      [{}, () => loadTunables({ PARLEY_LEASE_MS: '0' }), /PARLEY_LEASE_MS must be milliseconds > 0/],
      [{}, () => loadTunables({ PARLEY_SPECIALIST_CONCURRENCY: '2.5' }), /PARLEY_SPECIALIST_CONCURRENCY must be a whole number/],
      [{}, () => loadConfig({ PARLEY_C2S_PORT: '70000' }), /PARLEY_C2S_PORT must be a TCP port \(1-65535\), got "70000"/],
      [{}, () => loadTunables({ PARLEY_NEGOTIATE: 'sometimes' }), /PARLEY_NEGOTIATE must be one of auto, always, never/],
      [{}, () => busyRetryFrom({ PARLEY_BUSY_RETRY_MS: '-5' }, 30000), /PARLEY_BUSY_RETRY_MS must be milliseconds ≥ 0/],
      [{}, () => rateLimitFromEnv({ PARLEY_RATE_LIMIT_PER_S: 'lots' }), /PARLEY_RATE_LIMIT_PER_S must be a number ≥ 0/],
      [{}, () => envFlag('PARLEY_MAM', { PARLEY_MAM: 'maybe' }), /PARLEY_MAM must be 1 or 0/],
      [{}, () => envString('PARLEY_OTLP_URL', { PARLEY_OTLP_URL: 'ftp://x' }), /PARLEY_OTLP_URL must be an http\(s\) URL/],
    ];
    for (const [, run, message] of cases) expect(run).to.throw(ConfigError, message);
  });

  it('takes declared defaults, computed defaults and valid values', () => {
    const t = loadTunables({ PARLEY_LEASE_MS: '9000', PARLEY_OFFER_MARGIN_MS: '0', PARLEY_PRESENTER_ALLOW: 'a.example, b@c.example ,' }, 'localhost');
    expect(t).to.deep.include({ leaseMs: 9000, heartbeatMs: 3000, resultTimeoutMs: 30000, offerMarginMs: 0, negotiate: 'auto', presenterAllow: ['a.example', 'b@c.example'] });
    expect(loadTunables({}, 'example.org').presenterAllow).to.deep.equal(['example.org']);
    expect(loadConfig({ PARLEY_C2S_PORT: '20000' })).to.deep.include({ c2sPort: 20000, distPort: 20148, mam: false, offlineLimit: 100000 });
    expect(envNumber('PARLEY_SPECIALIST_QUEUE', {}, 16)).to.equal(16);
    expect(envFlag('PARLEY_AUTOSCALE', {})).to.equal(true);
    expect(envFlag('PARLEY_AUTOSCALE', { PARLEY_AUTOSCALE: '0' })).to.equal(false);
    expect(envList('PARLEY_CRASH_ONLY', {})).to.deep.equal([]);
    expect(rateLimitFromEnv({ PARLEY_RATE_LIMIT_PER_S: '0' })).to.equal(undefined);
  });

  it('refuses to read a variable nobody declared (fail closed)', () => {
    expect(() => envNumber('PARLEY_NOT_A_THING' as never, {})).to.throw(/not declared/);
  });
});
