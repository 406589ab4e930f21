// "Another device" for network tests: a network namespace of our own joined to this host by a
// veth pair (10.213.X.1 here, 10.213.X.2 there), when the sandbox lets us make one (root and
// iproute2; CI runs as root); otherwise a second and third loopback address. The test says which.
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export interface DeviceLink {
  kind: 'netns' | 'loopback';
  /** Where the host listens for the device (the exposed address). */
  hostAddress: string;
  /** The device's own address. */
  deviceAddress: string;
  /** Runs a compiled fixture (dist/test/fixtures/<name>.js) on the device with one JSON argument; its stdout. */
  run(fixture: string, arg: object): Promise<string>;
  close(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

export function deviceLink(): DeviceLink {
  const id = crypto.randomBytes(3).toString('hex');
  const ns = `parley-${id}`;
  const [hostIf, devIf] = [`pv${id}`, `pd${id}`];
  const net = `10.213.${crypto.randomInt(0, 255)}`;
  const fixturePath = (name: string) => path.join(repoRoot(), 'dist', 'test', 'fixtures', `${name}.js`);
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', devIf);
    ip('link', 'set', devIf, 'netns', ns);
    ip('addr', 'add', `${net}.1/30`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${net}.2/30`, 'dev', devIf);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', devIf, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    return {
      kind: 'netns', hostAddress: `${net}.1`, deviceAddress: `${net}.2`,
      run: async (name, arg) => (await promisify(execFile)('ip', ['netns', 'exec', ns, process.execPath, fixturePath(name), JSON.stringify(arg)])).stdout,
      close: () => {
        for (const args of [['link', 'del', hostIf], ['netns', 'del', ns]]) {
          try {
            ip(...args);
          } catch {
            // already gone
          }
        }
      },
    };
  } catch {
    for (const args of [['link', 'del', hostIf], ['netns', 'del', ns]]) {
      try {
        ip(...args);
      } catch {
        // not made
      }
    }
    return {
      kind: 'loopback', hostAddress: '127.0.0.2', deviceAddress: '127.0.0.3',
      run: async (name, arg) => (await promisify(execFile)(process.execPath, [fixturePath(name), JSON.stringify(arg)])).stdout,
      close: () => undefined,
    };
  }
}
