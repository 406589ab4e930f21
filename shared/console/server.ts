// The Parley Console's HTTP server (issue 13): fastify on 127.0.0.1:PARLEY_CONSOLE_PORT serving
// the JSON API (routes.ts, events.ts), its OpenAPI document (openapi.ts) and the dashboard
// (web/console/, plain ES modules; mermaid and xmpp.js come from node_modules, never a CDN).
import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance, type RouteOptions } from 'fastify';
import type { ParleyConfig } from '../config/index.js';
import { findContractsDir } from '../contracts/index.js';
import { OpsError } from '../ops/errors.js';
import { lazyCompilers } from './lazy-compilers.js';
import { repoRoot } from '../runtime/repo-root.js';
import { ConsoleAuth, SESSION_COOKIE } from './auth.js';
import { registerEvents } from './events.js';
import type { TelemetryFeed } from './feed.js';
import { type ConsoleSchema, openApiDocument } from './openapi.js';
import { agentsWithLoad, registerApi } from './routes.js';

export interface ConsoleServerOptions {
  cfg: ParleyConfig;
  auth: ConsoleAuth;
  feed: TelemetryFeed;
  /** Before the service layer's first use (routes.ts). */
  prepareOps?: () => Promise<void>;
}

/** Answer without credentials: the login page, what it loads, and the login call itself. */
const PUBLIC = new Set(['/login', '/api/login', '/assets/login.js', '/assets/style.css', '/favicon.svg']);

/** The browser libraries, served from node_modules (no CDN; the dashboard works offline). */
const VENDOR: Record<string, string> = {
  'mermaid.min.js': 'node_modules/mermaid/dist/mermaid.min.js',
  'xmpp.min.js': 'node_modules/@xmpp/client/dist/xmpp.min.js',
};

/**
 * The console-*.json contracts, read from their folder: asking the contract registry for their
 * names loaded every contract's validator first (≈ 30 ms of the console's start, issue 15). They
 * are checked against the meta-schema where every contract is (shared/contracts).
 */
function consoleSchemas(): ConsoleSchema[] {
  const dir = findContractsDir();
  return fs.readdirSync(dir).filter((f) => f.startsWith('console-') && f.endsWith('.json')).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ConsoleSchema);
}

export async function buildConsole(o: ConsoleServerOptions): Promise<FastifyInstance> {
  // validateSchema off: the schemas are the console-*.json contracts, checked against the meta-schema
  // where every contract is (shared/contracts); checking them again compiled the draft-07
  // meta-schema, ≈ 50 ms of the console's start (issue 15).
  const app = Fastify({
    logger: false, bodyLimit: 2 * 1024 * 1024, ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: 'array', validateSchema: false } },
    schemaController: { compilersFactory: lazyCompilers() },
  });
  const web = path.join(repoRoot(), 'web', 'console');
  const schemas = consoleSchemas();
  for (const s of schemas) app.addSchema(s); // fastify's ajv validates requests with the contracts
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (r) => void routes.push(r));
  await app.register(fastifyCookie);

  app.addHook('onRequest', async (req, reply) => {
    const url = req.url.split('?')[0]!;
    if (PUBLIC.has(url)) return;
    const verdict = o.auth.check(req);
    if (verdict === 'ok') return;
    if (req.method === 'GET' && !url.startsWith('/api/') && !url.startsWith('/assets/') && !url.startsWith('/vendor/')) return reply.redirect('/login');
    return reply.code(401).send({ error: verdict === 'NO_CREDENTIALS' ? 'UNAUTHENTICATED' : verdict, detail: 'log in with the admin token (npm run console prints it) or send Authorization: Bearer <token>' });
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    // Scripts only from here; the chat's WebSocket goes to ejabberd on loopback; mermaid styles its SVG inline.
    reply.header('content-security-policy', `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:${o.cfg.httpPort}; frame-ancestors 'none'`);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    return payload;
  });
  app.setErrorHandler((e: FastifyError | OpsError, _req, reply) => {
    if (e instanceof OpsError) return reply.code(e.status).send({ error: e.code, detail: e.message });
    const fe = e as FastifyError;
    if (fe.validation) return reply.code(400).send({ error: 'INVALID_REQUEST', detail: `${fe.validationContext ?? 'request'}${fe.message.replace(/^(body|querystring|params)/, '')}` });
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: 'TOO_LARGE', detail: 'the request body is over 2 MB' });
    if (fe.statusCode && fe.statusCode < 500) return reply.code(fe.statusCode).send({ error: (fe.code ?? 'BAD_REQUEST').replace(/^FST_ERR_/, ''), detail: fe.message });
    return reply.code(500).send({ error: 'INTERNAL_ERROR', detail: fe.message });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'NOT_FOUND', detail: `no route ${req.method} ${req.url.split('?')[0]}; see /api/openapi.json` }));

  app.post<{ Body: { token: string } }>('/api/login', { schema: { summary: 'Trade the admin token for a session cookie (HttpOnly, SameSite=Strict, expiring)', tags: ['console'], body: { $ref: 'https://parley.local/contracts/console-login.json' } } }, (req, reply) => {
    if (!o.auth.checkToken(req.body.token)) return reply.code(401).send({ error: 'BAD_TOKEN', detail: 'that is not the console token (npm run console prints it)' });
    const s = o.auth.login();
    o.auth.setCookie(reply, s);
    return { expires: s.expires };
  });
  app.post('/api/logout', { schema: { summary: 'End this browser session', tags: ['console'] } }, (req, reply) => {
    o.auth.logout(req.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true };
  });

  const deps = { cfg: o.cfg, feed: o.feed, ...(o.prepareOps ? { prepareOps: o.prepareOps } : {}) };
  registerApi(app, deps);
  const events = registerEvents(app, o.feed, agentsWithLoad(deps));
  app.addHook('onClose', async () => events.close());

  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  app.get('/api/openapi.json', { schema: { summary: 'This document', tags: ['console'] } }, () => openApiDocument(routes, schemas, { version }));

  await app.register(fastifyStatic, { root: web, prefix: '/assets/', index: false, decorateReply: true });
  app.get('/', (_req, reply) => reply.sendFile('index.html'));
  app.get('/login', (_req, reply) => reply.sendFile('login.html'));
  app.get('/favicon.svg', (_req, reply) => reply.sendFile('favicon.svg'));
  app.get<{ Params: { file: string } }>('/vendor/:file', (req, reply) => {
    const rel = VENDOR[req.params.file];
    if (!rel) return reply.code(404).send({ error: 'NOT_FOUND', detail: `no vendored file ${req.params.file}` });
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=3600').send(fs.createReadStream(path.join(repoRoot(), rel)));
  });
  return app;
}
