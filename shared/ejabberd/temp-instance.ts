// A throw-away ejabberd for the benchmark (and anything else that must not touch the default
// instance): temporary PARLEY_HOME, free ports, core accounts provisioned. Used by the bench and
// the test harness (test/support/ejabberd.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configEnv, loadConfig, type ParleyConfig } from '../config/index.js';
import { ensureAccount, provisionCore } from './accounts.js';
import * as ejabberd from './control.js';
import { freePort } from './ports.js';

export interface TempInstance {
  cfg: ParleyConfig;
  env: Record<string, string>;
  account(name: string): Promise<{ jid: string; password: string }>;
  /** Stops ejabberd and removes the home (unless keep). */
  stop(opts?: { keep?: boolean }): Promise<void>;
}

export async function startTempInstance(prefix = 'parley-bench-'): Promise<TempInstance> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const [c2s, component, agents, calendars, http, dist] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const cfg = loadConfig({
    PARLEY_HOME: home,
    PARLEY_C2S_PORT: String(c2s),
    PARLEY_COMPONENT_PORT: String(component),
    PARLEY_AGENTS_COMPONENT_PORT: String(agents),
    PARLEY_CALENDARS_COMPONENT_PORT: String(calendars),
    PARLEY_HTTP_PORT: String(http),
    PARLEY_DIST_PORT: String(dist),
  });
  try {
    await ejabberd.start(cfg);
    await provisionCore(cfg);
  } catch (err) {
    await ejabberd.stop(cfg).catch(() => undefined);
    fs.rmSync(home, { recursive: true, force: true });
    throw err;
  }
  return {
    cfg,
    env: configEnv(cfg),
    account: async (name) => {
      const { jid, password } = await ensureAccount(cfg, name);
      return { jid, password };
    },
    stop: async ({ keep = false } = {}) => {
      await ejabberd.stop(cfg).catch(() => undefined);
      if (!keep) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
