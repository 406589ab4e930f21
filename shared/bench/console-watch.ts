// npm run bench -- --console: the full flow again with the console process running (supervised
// like in npm start) and, when Debian's Chromium is installed, a headless browser logged in and
// watching the sniffer's live flow. The report compares it with the plain full flow: the console
// must not slow the hot path (issue 13: within 5 %).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureConsoleToken } from '../console/index.js';
import { consoleSettings } from '../console/settings.js';
import { freePort } from '../ejabberd/index.js';
import { consoleSpec, type Supervisor } from '../supervisor/index.js';
import type { Watcher } from './full-flow.js';
import { procCpuUs } from './proc.js';
import { freezeIdle, processTree, signal } from './freeze.js';
import type { Toggle } from './paired.js';
import { envFlag, envRaw, envString } from '../config/index.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A free port for the bench's console, in process.env so the full flow's Supervisor passes it on. */
export async function prepareConsoleBench(): Promise<void> {
  process.env.PARLEY_CONSOLE_PORT = String(await freePort());
}

export function consoleWatcher(): { watcher: Watcher; what: string; toggle: Toggle } {
  const withBrowser = fs.existsSync(CHROMIUM) && envFlag('PARLEY_BENCH_BROWSER');
  let closeBrowser: (() => Promise<void>) | undefined;
  let profileDir: string | undefined;
  // Set by start(): what --paired switches on and off (paired.ts).
  let supervisor: Supervisor | undefined;
  let live: (() => Promise<void>) | undefined;
  // Off: the console and the browser frozen (freeze.ts); on: thawed, the page showing the live flow.
  // Thawed whatever happens: a frozen console would hold up the supervisor's SIGTERM for ever.
  let frozen: number[] = [];
  const thaw = () => {
    signal(frozen, 'SIGCONT');
    frozen = [];
  };
  process.once('exit', thaw);
  return {
    toggle: {
      async on() {
        if (!supervisor) throw new Error('the console bench has not started');
        thaw();
        await live?.();
      },
      async off() {
        const pid = supervisor?.list().find((c) => c.name === 'console')?.pid;
        const browser = profileDir ? processTree(profileDir) : [];
        signal(browser, 'SIGSTOP');
        if (pid) await freezeIdle(pid);
        frozen = [...(pid ? [pid] : []), ...browser];
      },
    },
    what: withBrowser ? 'console running (nice 10), Chromium watching the sniffer (SCHED_IDLE)' : `console running, no browser (${fs.existsSync(CHROMIUM) ? 'PARLEY_BENCH_BROWSER=0' : 'no Chromium at /usr/bin/chromium'})`,
    watcher: {
      async start(instance, sup, ctx) {
        // The full flow's Supervisor passes process.env on: prepareConsoleBench set the port there.
        // --cpu-prof profiles the console too (its share of the overhead is the point of this run).
        const nodeArgs = (envString('PARLEY_BENCH_AGENT_NODE_ARGS') ?? '').split(' ').filter(Boolean);
        const spec = consoleSpec(ctx);
        sup.add({ ...spec, args: [...nodeArgs, ...spec.args] });
        supervisor = sup;
        await sup.whenReady(['console'], 30000);
        if (!withBrowser) return;
        const token = ensureConsoleToken(consoleSettings(instance.cfg, { ...process.env, ...instance.env }).tokenFile);
        const { chromium } = await import('playwright-core');
        const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-chromium-'));
        profileDir = profile;
        // The browser below every agent (SCHED_IDLE, else nice 10): a person's browser is their
        // own machine's business, not the agents'; the bench must not measure two cores shared
        // with a renderer. At nice 10 alone the renderer's many short wake-ups still delayed the
        // agents' hops (sequential p50 +46 % with 5 % of a core; the console alone: −4 %).
        const wrapper = path.join(profile, '..', `${path.basename(profile)}-chromium.sh`);
        const idle = fs.existsSync('/usr/bin/chrt') ? 'chrt --idle 0 ' : '';
        fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${idle}nice -n 10 ${CHROMIUM} "$@"\n`, { mode: 0o700 });
        const context = await chromium.launchPersistentContext(profile, { executablePath: wrapper, headless: true, args: CHROMIUM_FLAGS });
        closeBrowser = async () => {
          await context.close().catch(() => undefined);
          fs.rmSync(profile, { recursive: true, force: true });
          fs.rmSync(wrapper, { force: true });
        };
        const page = context.pages()[0] ?? (await context.newPage());
        const base = `http://127.0.0.1:${envRaw('PARLEY_CONSOLE_PORT') ?? ''}`;
        await page.goto(`${base}/login`);
        await page.fill('#token', token);
        await page.click('button[type=submit]');
        await page.waitForURL(`${base}/`);
        await page.goto(`${base}/#/sniffer`);
        live = async () => void (await page.waitForSelector('#live.on'));
        await live();
        // Where the renderer's time goes (script, style, layout, paint), printed when the run ends.
        const cdp = await context.newCDPSession(page);
        await cdp.send('Performance.enable');
        const metrics = async () => Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
        const before = await metrics();
        const closeContext = closeBrowser;
        closeBrowser = async () => {
          const after = await metrics().catch(() => undefined);
          if (after) {
            const keys = ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration', 'TaskOtherDuration'];
            process.stderr.write(`\n  [renderer] ${keys.map((k) => `${k} ${((after[k] ?? 0) - (before[k] ?? 0)).toFixed(2)} s`).join(', ')}, nodes ${after.Nodes}, layouts ${(after.LayoutCount ?? 0) - (before.LayoutCount ?? 0)}`);
          }
          await closeContext?.();
        };
      },
      cpuUs: () => (profileDir ? browserCpuUs(profileDir) : 0),
      async close() {
        thaw();
        await closeBrowser?.();
      },
    },
  };
}

/** CPU (µs) of the browser started with this profile and all its descendants (renderer, GPU, utility). */
function browserCpuUs(profile: string): number {
  return processTree(profile).reduce((sum, pid) => sum + procCpuUs(pid), 0);
}
