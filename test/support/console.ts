// Helpers for the console tests: a running Parley (startSupervisor) with its console, HTTP calls
// with the admin token or a session cookie, a local OTLP/HTTP receiver, and the Debian Chromium
// driven by playwright-core (it never downloads a browser of its own).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import type { Supervised } from './supervised.js';

export interface ConsoleHandle {
  base: string;
  token: string;
}

export function consoleOf(s: Supervised): ConsoleHandle {
  const token = fs.readFileSync(path.join(s.cfg.home, 'secrets', 'console-token'), 'utf8').trim();
  return { base: `http://127.0.0.1:${s.env.PARLEY_CONSOLE_PORT}`, token };
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A JSON call; `auth`: 'token' (Bearer), a cookie string, or none. */
export async function call(c: ConsoleHandle, method: string, url: string, { body, auth = 'token', headers = {} }: { body?: unknown; auth?: 'token' | 'none' | { cookie: string } | { bearer: string }; headers?: Record<string, string> } = {}): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  if (body !== undefined) h['content-type'] ??= 'application/json';
  if (auth === 'token') h.authorization = `Bearer ${c.token}`;
  else if (auth !== 'none' && 'cookie' in auth) h.cookie = auth.cookie;
  else if (auth !== 'none') h.authorization = `Bearer ${auth.bearer}`;
  const res = await fetch(c.base + url, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), redirect: 'manual' });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** An OTLP/HTTP receiver on loopback: keeps every request body to /v1/traces. */
export async function otlpReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(raw);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/traces`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Debian's Chromium with a fresh profile directory (removed by close). */
export async function browser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, viewport: { width: 1400, height: 900 } });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where the browser tests keep their screenshots (git-ignored). */
export function artifactsDir(): string {
  const dir = path.join(repoRoot(), 'test-artifacts', 'console');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
