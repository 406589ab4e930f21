// GET /api/openapi.json: an OpenAPI 3.1 document generated from the routes as registered
// (collected by fastify's onRoute hook) and the console-*.json schemas in contracts/, which are
// the same schemas fastify's ajv validates the requests with. Nothing is written twice.
import type { RouteOptions } from 'fastify';
import { CONTRACT_BASE } from '../contracts/index.js';

export interface ConsoleSchema {
  $id: string;
  title: string;
  [k: string]: unknown;
}

const componentName = (s: ConsoleSchema) => s.title;

/** $refs to contracts become #/components/schemas/<Title>; $id/$schema go (3.1 is JSON Schema 2020-12). */
function rewrite(node: unknown, byId: Map<string, ConsoleSchema>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, byId));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === '$ref' && typeof v === 'string' && v.startsWith(CONTRACT_BASE)) {
      const target = byId.get(v.split('#')[0]!);
      out.$ref = target ? `#/components/schemas/${componentName(target)}` : v;
      continue;
    }
    out[k] = rewrite(v, byId);
  }
  return out;
}

interface RouteSchema {
  summary?: string;
  tags?: string[];
  body?: unknown;
  querystring?: { properties?: Record<string, unknown>; required?: string[] } | { $ref: string };
  params?: { properties?: Record<string, unknown> };
  response?: Record<string, unknown>;
}

export function openApiDocument(routes: RouteOptions[], schemas: ConsoleSchema[], info: { version: string }): object {
  const byId = new Map(schemas.map((s) => [s.$id, s]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const url = r.url;
    if (!url.startsWith('/api/') || url === '/api/openapi.json') continue;
    const schema = (r.schema ?? {}) as RouteSchema;
    const methods = (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== 'HEAD');
    const openPath = url.replace(/:([A-Za-z_]+)/g, '{$1}');
    for (const m of methods) {
      const parameters: unknown[] = [];
      for (const name of [...url.matchAll(/:([A-Za-z_]+)/g)].map((x) => x[1]!)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
      let qs = schema.querystring;
      if (qs && '$ref' in qs) qs = byId.get(qs.$ref) as { properties?: Record<string, unknown> } | undefined;
      for (const [name, s] of Object.entries(qs?.properties ?? {})) parameters.push({ name, in: 'query', required: false, schema: rewrite(s, byId) });
      const responses: Record<string, unknown> = {};
      for (const [code, s] of Object.entries(schema.response ?? {})) responses[code] = { description: code.startsWith('2') ? 'OK' : 'error', content: { 'application/json': { schema: rewrite(s, byId) } } };
      responses['401'] ??= { description: 'no or wrong credentials', content: { 'application/json': { schema: { $ref: '#/components/schemas/ConsoleError' } } } };
      (paths[openPath] ??= {})[m.toLowerCase()] = {
        summary: schema.summary ?? `${m} ${openPath}`,
        tags: schema.tags ?? [],
        ...(parameters.length ? { parameters } : {}),
        ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: rewrite(schema.body, byId) } } } } : {}),
        responses,
        ...(url === '/api/login' ? { security: [] } : {}),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Parley Console API', version: info.version, description: 'Agents, skills, messages, conversations, live events and read access to sessions, meetings, tasks, bookings and the DF of one Parley instance.' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'the admin token ($PARLEY_HOME/secrets/console-token; npm run console)' }, cookie: { type: 'apiKey', in: 'cookie', name: 'parley_console' } },
      schemas: Object.fromEntries(schemas.map((s) => [componentName(s), rewrite(s, byId)])),
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

// What a route's schema says about itself for this document (as @fastify/swagger declares it).
declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: string[];
  }
}
