// What a supervised child tells its supervisor, as typed messages over Node's IPC channel (issue
// 10 §2: readiness and idleness are not read from log lines). A child started by anything else
// (a test, a shell) has no channel: tell() then does nothing, and the log line says the same.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ParleyConfig } from '../config/index.js';

/** The moment a child counts as ready, per kind of process (spec.ts readyOn). */
export type ReadyMoment = 'online' | 'registered' | 'agents registered' | 'calendars registered' | 'rooms registered';

export type ChildMessage =
  | { type: 'ready'; moment: ReadyMoment }
  /** A specialist with nothing to do for its --idle-after-ms (scale-down). */
  | { type: 'idle'; idle_ms: number };

const MOMENTS: ReadonlySet<string> = new Set<ReadyMoment>(['online', 'registered', 'agents registered', 'calendars registered', 'rooms registered']);

export function isChildMessage(v: unknown): v is ChildMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  if (m.type === 'ready') return typeof m.moment === 'string' && MOMENTS.has(m.moment);
  return m.type === 'idle' && typeof m.idle_ms === 'number';
}

export function tellSupervisor(message: ChildMessage): void {
  if (process.send && process.connected) process.send(message);
}

/** What a supervisor tells its children: every agent of the start is ready (supervisor.ts). */
export type SupervisorMessage = { type: 'system-ready' };

/**
 * Calls `fn` once the supervisor says every agent of the start is ready; at once for a child with
 * no supervisor (started by a test or a shell: nothing to wait for). Work that only makes later
 * answers faster (a specialist's skill workers, issue 15) waits for it, so it does not compete with
 * the other agents' starts; `maxWaitMs` bounds the wait if that moment never comes.
 */
export function whenSystemReady(fn: () => void, maxWaitMs: number): void {
  if (!process.send || !process.connected) {
    fn();
    return;
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    process.off('message', onMessage);
    fn();
  };
  const onMessage = (m: unknown) => {
    if ((m as SupervisorMessage | undefined)?.type === 'system-ready') once();
  };
  const timer = setTimeout(once, maxWaitMs);
  timer.unref();
  process.on('message', onMessage);
}

/** Logs the moment (operators read the log) and tells the supervisor. */
export function announce(logger: Logger, fields: object, moment: ReadyMoment): void {
  logger.info(fields, moment);
  tellSupervisor({ type: 'ready', moment });
}

// The client side of the supervisor's control endpoint (control.ts serves it): here, not in
// control.ts, so that an agent asking its supervisor (the Coordinator scaling specialists) loads
// this leaf and not the supervisor itself.
export interface ControlInfo {
  pid: number;
  socket?: string;
  port?: number;
}

export const runDir = (cfg: ParleyConfig) => path.join(cfg.home, 'run');
export const infoFile = (cfg: ParleyConfig) => path.join(runDir(cfg), 'supervisor.json');

export function readControlInfo(cfg: ParleyConfig): ControlInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(infoFile(cfg), 'utf8')) as ControlInfo;
  } catch {
    return undefined;
  }
}

export interface ControlResponse {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The supervisor already serving this PARLEY_HOME, if one answers on its control endpoint (a
 * file left by one that was killed does not count). One system per home: a second `npm start`
 * took over the accounts, and every agent of the first was cut off ("replaced by a newer session").
 */
export async function runningSupervisor(cfg: ParleyConfig): Promise<ControlInfo | undefined> {
  const info = readControlInfo(cfg);
  if (!info || info.pid === process.pid) return undefined;
  const answer = await controlRequest(cfg, 'GET', '/agents').catch(() => undefined);
  return answer ? info : undefined;
}

/** What a second start says: who runs, and how to stop it. */
export const alreadyRunning = (cfg: ParleyConfig, info: ControlInfo) =>
  `Parley already runs for ${cfg.home} (supervisor pid ${info.pid}): npm run status shows it; stop it with Ctrl-C where it runs, or kill ${info.pid}`;

/** A request to the running supervisor; undefined when none is running for this PARLEY_HOME. */
export function controlRequest(cfg: ParleyConfig, method: 'GET' | 'POST', url: string, body?: unknown): Promise<ControlResponse | undefined> {
  const info = readControlInfo(cfg);
  if (!info) return Promise.resolve(undefined);
  const target = info.socket ? { socketPath: info.socket } : { host: '127.0.0.1', port: info.port };
  return new Promise((resolve, reject) => {
    const req = http.request({ ...target, method, path: url, headers: { 'content-type': 'application/json' } }, (res) => {
      let raw = '';
      res.on('data', (c) => (raw += String(c)));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(raw) as Record<string, unknown> });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => (['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '') ? resolve(undefined) : reject(err)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
