// Console access (issue 13): one random admin token in $PARLEY_HOME/secrets/console-token (0600).
// API clients send `Authorization: Bearer <token>`; a browser trades the token once for a session
// cookie (HttpOnly, SameSite=Strict, expiring). Everything but the login page and its assets
// answers 401 without one of the two.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type {} from '@fastify/cookie'; // its request.cookies / reply.setCookie types
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomSecret, writePrivateFile } from '../secrets/index.js';

export const SESSION_COOKIE = 'parley_console';

/** The token, created on first use. */
export function ensureConsoleToken(file: string): string {
  try {
    const t = fs.readFileSync(file, 'utf8').trim();
    if (t) return t;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomSecret(32);
  writePrivateFile(file, token + '\n');
  return token;
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export class ConsoleAuth {
  /** session id → expiry (epoch ms). In memory: a console restart logs browsers out. */
  private readonly sessions = new Map<string, number>();

  constructor(private readonly token: string, readonly ttlMs: number) {}

  checkToken(candidate: unknown): boolean {
    return typeof candidate === 'string' && sameSecret(candidate, this.token);
  }

  login(): { id: string; expires: number } {
    const id = randomBytes(32).toString('base64url');
    const expires = Date.now() + this.ttlMs;
    this.sessions.set(id, expires);
    for (const [k, exp] of this.sessions) if (exp < Date.now()) this.sessions.delete(k);
    return { id, expires };
  }

  logout(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  /** 'ok', or why not (for the 401 body). */
  check(req: FastifyRequest): 'ok' | 'NO_CREDENTIALS' | 'BAD_TOKEN' | 'SESSION_EXPIRED' | 'BAD_SESSION' {
    const header = req.headers.authorization;
    if (header !== undefined) return /^Bearer\s+(.+)$/i.test(header) && this.checkToken(/^Bearer\s+(.+)$/i.exec(header)![1]!.trim()) ? 'ok' : 'BAD_TOKEN';
    const sid = req.cookies[SESSION_COOKIE];
    if (!sid) return 'NO_CREDENTIALS';
    const exp = this.sessions.get(sid);
    if (exp === undefined) return 'BAD_SESSION';
    if (exp < Date.now()) {
      this.sessions.delete(sid);
      return 'SESSION_EXPIRED';
    }
    return 'ok';
  }

  setCookie(reply: FastifyReply, s: { id: string; expires: number }): void {
    reply.setCookie(SESSION_COOKIE, s.id, { httpOnly: true, sameSite: 'strict', path: '/', expires: new Date(s.expires) });
  }
}
