// Attachments people can open (issue 16): an invitation's .ics is not pasted into the chat but
// offered as an out-of-band file (XEP-0066 jabber:x:oob <url>), served here over HTTP on
// loopback. Each file gets an unguessable name (128 random bits): whoever holds the link may
// fetch it, nobody can list or guess others. Files live in $PARLEY_HOME/data/files (owner-only)
// so links survive a restart on a fixed PARLEY_FILES_PORT, and expire after FILE_TTL_MS.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** How long a link works: a week, long enough to open an invitation, short enough to not pile up. */
export const FILE_TTL_MS = 7 * 24 * 3600 * 1000;
/** /files/<32 hex>/<name>.ics — nothing else is served. */
const ROUTE = /^\/files\/([0-9a-f]{32})\/([a-z0-9][a-z0-9._-]{0,60}\.ics)$/;

export interface FileServer {
  /** Stores `text` and returns the URL that serves it. */
  put(name: string, text: string): string;
  port: number;
  close(): Promise<void>;
}

function sweep(dir: string, now: number): void {
  for (const f of fs.readdirSync(dir)) {
    const file = path.join(dir, f);
    try {
      if (now - fs.statSync(file).mtimeMs > FILE_TTL_MS) fs.rmSync(file, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** Serves `dir` on `host:port` (0 = any free port). */
export async function startFileServer(dir: string, host: string, port: number): Promise<FileServer> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  sweep(dir, Date.now());
  const server = http.createServer((req, res) => {
    const m = ROUTE.exec(new URL(req.url ?? '/', 'http://x').pathname);
    const file = m ? path.join(dir, `${m[1]}.ics`) : undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    let body: Buffer | undefined;
    try {
      if (file && Date.now() - fs.statSync(file).mtimeMs <= FILE_TTL_MS) body = fs.readFileSync(file);
    } catch {
      body = undefined;
    }
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such file (or the link expired)\n');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/calendar; charset=utf-8',
      'content-disposition': `attachment; filename="${m?.[2]}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    }).end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const timer = setInterval(() => sweep(dir, Date.now()), 3600 * 1000);
  timer.unref();
  return {
    port: bound,
    put(name, text) {
      const id = randomBytes(16).toString('hex');
      fs.writeFileSync(path.join(dir, `${id}.ics`), text, { mode: 0o600 });
      const safe = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 56) || 'invitation';
      return `http://${urlHost}:${bound}/files/${id}/${safe.endsWith('.ics') ? safe : `${safe}.ics`}`;
    },
    close: () => {
      clearInterval(timer);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
