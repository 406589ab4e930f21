// Integration tests run a real, project-local ejabberd (never a mock) in a temporary
// PARLEY_HOME on free ports. One instance is shared by the whole run (start ≈ 1.5 s) and
// stopped by the root hook; tests use their own accounts and conversation ids.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configEnv, loadConfig, type ParleyConfig } from '../../shared/config/index.js';
import { closeApiAgent } from '../../shared/ejabberd/api.js';
import { ensureAccount, provisionCore } from '../../shared/ejabberd/accounts.js';
import * as ejabberd from '../../shared/ejabberd/control.js';
import { freePort } from '../../shared/ejabberd/ports.js';

export interface TestInstance {
  cfg: ParleyConfig;
  env: Record<string, string>;
  account(name: string): Promise<{ jid: string; password: string }>;
}

let shared: Promise<TestInstance> | undefined;
const started: ParleyConfig[] = [];

export async function startInstance(prefix = 'parley-test-'): Promise<TestInstance> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(home, 0o755); // ejabberd runs as its own user and must traverse the state dir
  const [c2s, component, http, dist] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const cfg = loadConfig({
    PARLEY_HOME: home,
    PARLEY_C2S_PORT: String(c2s),
    PARLEY_COMPONENT_PORT: String(component),
    PARLEY_HTTP_PORT: String(http),
    PARLEY_DIST_PORT: String(dist),
  });
  await ejabberd.start(cfg);
  started.push(cfg);
  await provisionCore(cfg);
  return {
    cfg,
    env: configEnv(cfg),
    account: async (name) => {
      const { jid, password } = await ensureAccount(cfg, name);
      return { jid, password };
    },
  };
}

/** The run's shared instance, started on first use. */
export function sharedInstance(): Promise<TestInstance> {
  shared ??= startInstance();
  return shared;
}

export async function stopAll(): Promise<void> {
  for (const cfg of started.splice(0)) {
    await ejabberd.stop(cfg).catch(() => undefined);
    if (!process.env.PARLEY_KEEP_TEST_HOME) fs.rmSync(cfg.home, { recursive: true, force: true });
  }
  closeApiAgent();
  shared = undefined;
}
