// Readiness is decided by the ports, never by ejabberdctl's exit code (facts.md: a node whose
// spool it cannot write still makes `start` return 0 and then dies silently).
import fs from 'node:fs';
import net from 'node:net';

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export async function waitFor(
  check: () => Promise<boolean>,
  { timeoutMs = 30000, intervalMs = 50, what = 'condition' } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

// Ports handed out by this process, so two calls never return the same one before it is bound.
const handedOut = new Set<number>();

/** The kernel's ephemeral range (outgoing connections and `listen(0)` take ports from it). */
function ephemeralRange(): [number, number] {
  try {
    const [lo = 0, hi = 0] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch { /* not Linux: use the IANA default */ }
  return [49152, 65535];
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port that is free on loopback right now (for tests and side-by-side instances). It is
 * chosen below the ephemeral range: a port from `listen(0)` lies inside it, where any agent's
 * outgoing connection may take it between this call and the listener's bind (a console that
 * could not start in CI, stop 18).
 */
export async function freePort(): Promise<number> {
  const [lo] = ephemeralRange();
  const top = Math.min(lo, 65536);
  const bottom = Math.max(10000, top - 12000);
  for (let i = 0; i < 64; i++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
