// The supervisor's control endpoint: HTTP on a UNIX socket $PARLEY_HOME/run/supervisor.sock
// (a loopback port when that path is too long for a socket), described in run/supervisor.json.
//   GET  /agents                              → {agents: [{name, pid, status, restarts, uptime_s}]}
//   POST /spawn {kind:'specialist', name, experts|skills, role} → 201 {agent, ready_ms} once it registered; 502 FAILED_TO_START (with its reason) as soon as it gave up
//     (with count: a specialist host of `count` virtual agents, ready once all registered)
//   POST /spawn {kind:'calendar', person}     → the same for a person's calendar agent (202 when
//                                               the calendar host serves it: PARLEY_CALENDAR_HOST=1)
//   POST /spawn {kind:'calendar', name, count} → a calendar host of N generated people
//   POST /scale {busy: [names]}               → 201 {agent, ready_ms}: one more specialist of a busy
//                                               one's role (scale.ts); 409 AT_LIMIT, 404 NO_FITTING_ROLE
//   POST /stop  {name}                        → stops it and keeps it down
//   POST /start {name}                        → starts a stopped agent, answers once it is ready
// Errors are JSON {error: CODE, detail}, never a dropped connection.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { assertPerson } from '../calendar/config.js';
import type { ParleyConfig } from '../config/index.js';
import type { Role } from '../skills/index.js';
import { alreadyRunning, type ControlInfo, infoFile, runDir, runningSupervisor } from './ipc.js';
import { planScale } from './scale.js';
import type { AgentSpec, SpecialistDef } from './spec.js';
import { FailedToStart, type Supervisor } from './supervisor.js';

const MAX_SOCKET_PATH = 100; // sun_path is 108 bytes on Linux

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, detail: string) {
    super(detail);
  }
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) {
    raw += String(chunk);
    if (raw.length > 65536) throw new HttpError(413, 'TOO_LARGE', 'request body over 64 kB');
  }
  try {
    const v = raw === '' ? {} : (JSON.parse(raw) as unknown);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch (err) {
    throw new HttpError(400, 'INVALID_JSON', `body must be a JSON object: ${(err as Error).message}`);
  }
}

function nameOf(body: Record<string, unknown>): string {
  if (typeof body.name !== 'string' || body.name === '') throw new HttpError(400, 'INVALID_ARGS', '"name" (a string) is required');
  return body.name;
}

export interface ControlOptions {
  supervisor: Supervisor;
  specialistSpec: (def: SpecialistDef) => AgentSpec;
  /** Absent: calendars cannot be spawned. */
  calendarSpec?: (person: string) => AgentSpec;
  /**
   * PARLEY_CALENDAR_HOST=1: the supervised calendar host's name. A person's calendar is then not
   * spawned: the host serves it as soon as calendars/<person>.json exists (it watches the folder).
   */
  calendarHost?: string;
  /** A calendar host of `count` generated people (`npm run spawn -- calendar --count N --host NAME`). */
  calendarHostSpec?: (def: { name: string; count: number }) => AgentSpec;
  readyTimeoutMs?: number;
  /** Roles for POST /scale (config/roles.json + $PARLEY_HOME/roles.json). */
  roles?: ReadonlyMap<string, Role>;
  /** Extras log "idle" and are stopped after this long without work (PARLEY_SPAWN_IDLE_MS). */
  idleAfterMs?: number;
  /** Throws when a specialist's skills are unknown or not allowed (operate.ts checkSpawnSkills): 400 at once, nothing started. */
  checkSkills?: (def: SpecialistDef) => void;
}

function stringList(v: unknown, field: string): string[] {
  const list = v ?? [];
  if (!Array.isArray(list) || !list.every((e) => typeof e === 'string')) throw new HttpError(400, 'INVALID_ARGS', `"${field}" must be a list of strings`);
  return list;
}

async function spawnReady(o: ControlOptions, spec: AgentSpec, wait: number): Promise<[number, unknown]> {
  const sup = o.supervisor;
  if (sup.has(spec.name)) throw new HttpError(409, 'ALREADY_RUNNING', `${spec.name} is already supervised`);
  const t0 = Date.now();
  sup.add(spec);
  await sup.whenReady([spec.name], wait).catch((err: Error) => {
    // It kept dying at start: said at once, with its reason, instead of waiting out the timeout.
    if (err instanceof FailedToStart) throw new HttpError(502, 'FAILED_TO_START', err.message);
    throw new HttpError(504, 'NOT_READY', `${err.message} (still supervised; see logs/${spec.name}.log)`);
  });
  return [201, { agent: sup.list().find((a) => a.name === spec.name), ready_ms: Date.now() - t0 }];
}

async function route(o: ControlOptions, req: http.IncomingMessage): Promise<[number, unknown]> {
  const sup = o.supervisor;
  const wait = o.readyTimeoutMs ?? 30000;
  const key = `${req.method} ${(req.url ?? '').split('?')[0]}`;
  switch (key) {
    case 'GET /agents':
      return [200, { agents: sup.list() }];
    case 'POST /spawn': {
      const body = await readJson(req);
      if (body.kind === 'calendar' && body.count !== undefined && o.calendarHostSpec) return spawnReady(o, calendarHostSpecOf(o.calendarHostSpec, body), wait);
      if (body.kind === 'calendar' && o.calendarHost) {
        personOf(body);
        return [202, { agent: sup.list().find((a) => a.name === o.calendarHost), hosted: true }];
      }
      if (body.kind === 'calendar' && o.calendarSpec) return spawnReady(o, calendarSpecOf(o.calendarSpec, body), wait);
      if (body.kind !== 'specialist') throw new HttpError(400, 'INVALID_ARGS', `only kind "specialist"${o.calendarSpec ? ' or "calendar"' : ''} can be spawned`);
      const experts = stringList(body.skills ?? body.experts, 'skills');
      if (body.role !== undefined && typeof body.role !== 'string') throw new HttpError(400, 'INVALID_ARGS', '"role" must be a string');
      if (typeof body.role === 'string' && o.roles && !o.roles.has(body.role)) throw new HttpError(400, 'INVALID_ARGS', `unknown role ${JSON.stringify(body.role)}; known: ${[...o.roles.keys()].join(', ')}`);
      let spec: AgentSpec;
      try {
        if (body.count !== undefined && (typeof body.count !== 'number' || !Number.isInteger(body.count) || body.count < 1)) throw new Error('"count" must be a positive integer');
        if (body.shard !== undefined && (typeof body.shard !== 'string' || body.count === undefined)) throw new Error('"shard" must be a string, with "count"');
        const def = {
          name: nameOf(body), experts, ...(typeof body.role === 'string' ? { role: body.role } : {}), ...(typeof body.count === 'number' ? { count: body.count } : {}),
          ...(typeof body.shard === 'string' ? { shard: body.shard } : {}),
        };
        o.checkSkills?.(def);
        spec = o.specialistSpec(def);
      } catch (err) {
        throw new HttpError(400, 'INVALID_ARGS', (err as Error).message);
      }
      return spawnReady(o, spec, wait);
    }
    case 'POST /scale': {
      const busy = stringList((await readJson(req)).busy, 'busy');
      const plan = planScale(sup.list(), o.roles ?? new Map(), busy, o.idleAfterMs ?? 60000);
      if (plan.action === 'refuse') throw new HttpError(plan.code === 'AT_LIMIT' ? 409 : 404, plan.code, plan.detail);
      if (plan.action === 'wait') {
        const t0 = Date.now();
        await sup.whenReady([plan.name], wait).catch((err: Error) => {
          throw new HttpError(504, 'NOT_READY', err.message);
        });
        return [200, { agent: sup.list().find((a) => a.name === plan.name), ready_ms: Date.now() - t0, coalesced: true }];
      }
      return spawnReady(o, o.specialistSpec(plan.def), wait);
    }
    case 'POST /stop': {
      const name = nameOf(await readJson(req));
      if (!sup.has(name)) throw new HttpError(404, 'NO_SUCH_AGENT', `no agent named ${name}`);
      return [200, { agent: await sup.stopOne(name) }];
    }
    case 'POST /start': {
      const name = nameOf(await readJson(req));
      if (!sup.has(name)) throw new HttpError(404, 'NO_SUCH_AGENT', `no agent named ${name}`);
      const t0 = Date.now();
      sup.startOne(name);
      await sup.whenReady([name], wait).catch((err: Error) => {
        throw new HttpError(504, 'NOT_READY', err.message);
      });
      return [200, { agent: sup.list().find((a) => a.name === name), ready_ms: Date.now() - t0 }];
    }
    default:
      throw new HttpError(404, 'NOT_FOUND', `no route ${key}; try GET /agents, POST /spawn, POST /scale, POST /stop, POST /start`);
  }
}

function calendarHostSpecOf(spec: (def: { name: string; count: number }) => AgentSpec, body: Record<string, unknown>): AgentSpec {
  if (typeof body.count !== 'number' || !Number.isInteger(body.count) || body.count < 1) throw new HttpError(400, 'INVALID_ARGS', '"count" must be a positive integer');
  try {
    return spec({ name: nameOf(body), count: body.count });
  } catch (err) {
    throw new HttpError(400, 'INVALID_ARGS', (err as Error).message);
  }
}

function personOf(body: Record<string, unknown>): string {
  if (typeof body.person !== 'string' || body.person === '') throw new HttpError(400, 'INVALID_ARGS', '"person" (a string) is required');
  try {
    assertPerson(body.person);
  } catch (err) {
    throw new HttpError(400, 'INVALID_ARGS', (err as Error).message);
  }
  return body.person;
}

function calendarSpecOf(calendarSpec: (person: string) => AgentSpec, body: Record<string, unknown>): AgentSpec {
  const person = personOf(body);
  try {
    return calendarSpec(person);
  } catch (err) {
    throw new HttpError(400, 'INVALID_ARGS', (err as Error).message);
  }
}

export async function startControl(cfg: ParleyConfig, o: ControlOptions): Promise<{ info: ControlInfo; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    route(o, req).then(
      ([status, body]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (err: Error) => {
        const e = err instanceof HttpError ? err : new HttpError(500, 'INTERNAL_ERROR', err.message);
        res.writeHead(e.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: e.code, detail: e.message }));
      },
    );
  });
  fs.mkdirSync(runDir(cfg), { recursive: true, mode: 0o700 });
  const socket = path.join(runDir(cfg), 'supervisor.sock');
  const info: ControlInfo = { pid: process.pid };
  if (socket.length <= MAX_SOCKET_PATH) {
    // Bound only if no file is there (EADDRINUSE otherwise): of two starts at once one wins.
    const listen = () => new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, () => resolve()));
    await listen().catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') throw err;
      const other = await runningSupervisor(cfg);
      if (other) throw new Error(alreadyRunning(cfg, other));
      fs.rmSync(socket, { force: true }); // left by a supervisor that was killed
      await listen();
    });
    fs.chmodSync(socket, 0o600);
    info.socket = socket;
  } else {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    info.port = (server.address() as { port: number }).port;
  }
  fs.writeFileSync(infoFile(cfg), JSON.stringify(info) + '\n', { mode: 0o600 });
  return {
    info,
    close: () =>
      new Promise<void>((resolve) => {
        fs.rmSync(infoFile(cfg), { force: true });
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
