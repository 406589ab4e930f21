// Typed readers of the PARLEY_* variables declared in variables.ts: the only place code reads
// them. Unset (or empty) → the declared default (or the caller's computed one); anything else is
// validated, and a bad value throws a ConfigError naming the variable, what it must be and what
// it got, so a process refuses to start instead of running with a NaN delay.
import { isDeclared, type VarName, type VarSpec, VARIABLES } from './variables.js';

export class ConfigError extends Error {
  constructor(name: string, must: string, raw: string) {
    super(`${name} must be ${must}, got ${JSON.stringify(raw)} (README "Configuration")`);
    this.name = 'ConfigError';
  }
}

type Env = NodeJS.ProcessEnv;

function spec(name: VarName): VarSpec {
  if (!isDeclared(name)) throw new Error(`${String(name)} is not declared in shared/config/variables.ts`);
  return VARIABLES[name] as VarSpec;
}

/** The raw value, or undefined when unset or empty. */
export function envRaw(name: VarName, env: Env = process.env): string | undefined {
  spec(name);
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function declaredDefault<T>(name: VarName, type: 'number' | 'string' | 'boolean'): T | undefined {
  const d = spec(name).default;
  return typeof d === type ? (d as T) : undefined;
}

/**
 * A number (kinds ms, number, port) within the declared bounds: ms must be > 0 unless min 0,
 * ports 1-65535, counts ≥ min (default 0). `fallback` replaces a computed default.
 */
export function envNumber(name: VarName, env: Env = process.env, fallback?: number): number {
  const s = spec(name);
  const raw = envRaw(name, env);
  if (raw === undefined) {
    const d = fallback ?? declaredDefault<number>(name, 'number');
    if (d === undefined) throw new Error(`${name} has no default: pass the computed one`);
    return d;
  }
  const n = Number(raw);
  if (s.kind === 'port') {
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new ConfigError(name, 'a TCP port (1-65535)', raw);
    return n;
  }
  const min = s.min ?? (s.kind === 'ms' ? Number.MIN_VALUE : 0);
  const what = s.kind === 'ms' ? 'milliseconds' : 'a number';
  if (!Number.isFinite(n) || n < min) throw new ConfigError(name, `${what} ${min === Number.MIN_VALUE ? '> 0' : `≥ ${min}`}`, raw);
  if (s.integer && !Number.isInteger(n)) throw new ConfigError(name, 'a whole number', raw);
  return n;
}

/** A number, or undefined when unset and nothing is declared (e.g. PARLEY_AGORA_MAX_COST). */
export function envOptionalNumber(name: VarName, env: Env = process.env): number | undefined {
  return envRaw(name, env) === undefined && declaredDefault<number>(name, 'number') === undefined ? undefined : envNumber(name, env);
}

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);

/** A flag: 1/true/yes/on or 0/false/no/off. */
export function envFlag(name: VarName, env: Env = process.env): boolean {
  const raw = envRaw(name, env);
  if (raw === undefined) return declaredDefault<boolean>(name, 'boolean') ?? false;
  const v = raw.trim().toLowerCase();
  if (ON.has(v)) return true;
  if (OFF.has(v)) return false;
  throw new ConfigError(name, '1 or 0 (also true/false, yes/no, on/off)', raw);
}

/** A string (kinds string, path, url), the declared default, or undefined. */
export function envString(name: VarName, env: Env = process.env): string | undefined {
  const s = spec(name);
  const raw = envRaw(name, env);
  if (raw === undefined) return declaredDefault<string>(name, 'string');
  if (s.kind === 'url') {
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new ConfigError(name, 'an http(s) URL', raw);
    }
  }
  return raw;
}

/** One of the declared values. */
export function envEnum<T extends string>(name: VarName, env: Env = process.env): T {
  const s = spec(name);
  const raw = envRaw(name, env) ?? (s.default as string | undefined);
  if (raw === undefined) throw new Error(`${name} has no default`);
  if (!s.values?.includes(raw)) throw new ConfigError(name, `one of ${s.values?.join(', ')}`, raw);
  return raw as T;
}

/** A comma-separated list (blank items dropped), or `fallback` when unset. */
export function envList(name: VarName, env: Env = process.env, fallback: string[] = []): string[] {
  const raw = envRaw(name, env);
  return raw === undefined ? fallback : raw.split(',').map((x) => x.trim()).filter(Boolean);
}

/**
 * A secret's value, removed from `env` once read: what the process spawns later (a skill's
 * sandbox gets granted variables only, but a supervisor's children inherit) never sees it.
 */
export function envTake(name: VarName, env: Env = process.env): string | undefined {
  const v = envRaw(name, env);
  delete env[name];
  return v;
}
