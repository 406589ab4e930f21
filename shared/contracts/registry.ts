// Loads contracts/*.json (the single source of truth) into ONE ajv instance, fastify-style:
// a missing or duplicate $id, or a schema that does not compile, stops start-up. The process-wide
// contracts() load validators compiled ahead of time when they match (./precompiled.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv, AnySchemaObject, ValidateFunction } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import { PRECOMPILED_FILE, fingerprint, loadPrecompiled, type Validators, writePrecompiled } from './precompiled.js';

/** Every contract's $id is CONTRACT_BASE + '<file name>'. */
export const CONTRACT_BASE = 'https://parley.local/contracts/';

// ajv and ajv-formats (≈ 100 CommonJS modules, ≈ 65 ms of CPU to load) are required only to
// compile: a process whose precompiled validators match (./precompiled.ts) never loads them (issue 15).
const require = createRequire(import.meta.url);

export class ContractLoadError extends Error {
  override readonly name = 'ContractLoadError';
  constructor(message: string, readonly file?: string, options?: { cause?: unknown }) {
    super(file ? `${message} (${file})` : message, options);
  }
}

export interface Contracts {
  /** The absolute contracts/ directory the schemas came from. */
  readonly dir: string;
  /** Contract names (file names without .json), sorted. */
  readonly names: readonly string[];
  /** The shared ajv instance; every schema is added under its $id. */
  readonly ajv: Ajv;
  /** True when a contract of that name ('envelope') or $id exists. */
  has(nameOrId: string): boolean;
  /** The compiled validator for a contract name ('envelope') or full $id; throws when unknown. */
  validator<T = unknown>(nameOrId: string): ValidateFunction<T>;
}

/** Full $id for a contract name: contractId('envelope') → https://parley.local/contracts/envelope.json */
export function contractId(name: string): string {
  return name.startsWith(CONTRACT_BASE) ? name : `${CONTRACT_BASE}${name}.json`;
}

/**
 * Walks up from `from` (default: this module's directory, which is dist/shared/contracts when
 * compiled) to the first directory holding contracts/envelope.json.
 */
export function findContractsDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'contracts');
    if (existsSync(join(candidate, 'envelope.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new ContractLoadError(`no contracts/envelope.json above ${from}`);
    dir = parent;
  }
}

function readSchema(file: string, text: string): AnySchemaObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ContractLoadError('contract is not valid JSON', file, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ContractLoadError('contract is not a JSON object', file);
  }
  return parsed as AnySchemaObject;
}

// allErrors gives the peer every problem at once; every string/array in the contracts is
// bounded and the pipeline caps stanza size first, so the extra work stays small.
const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true } as const;
const FORMATS = ['date-time', 'uri'] as const; // uri: oacop-rfc §7 threadId

function newAjv(source: boolean): Ajv {
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS (`module.exports = plugin; exports.default = plugin`).
  const addFormats = (require('ajv-formats') as typeof addFormatsModule).default;
  const ajv = new AjvClass({ ...AJV_OPTIONS, code: { source } });
  addFormats(ajv, [...FORMATS]);
  return ajv;
}

function addAll(ajv: Ajv, schemas: ReadonlyMap<string, { path: string; schema: AnySchemaObject }>): Ajv {
  for (const { path, schema } of schemas.values()) {
    try {
      ajv.addSchema(schema);
    } catch (cause) {
      throw new ContractLoadError(`contract is not a valid schema: ${String(cause)}`, path, { cause });
    }
  }
  return ajv;
}

export interface LoadOptions {
  /** Use and refresh compiled validators in this file (./precompiled.ts); the process-wide contracts() use PRECOMPILED_FILE. */
  readonly precompiled?: string;
}

export function loadContracts(dir: string = findContractsDir(), { precompiled }: LoadOptions = {}): Contracts {
  const root = resolve(dir);
  const files = readdirSync(root).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new ContractLoadError('no *.json contracts found', root);

  const texts: { name: string; text: string }[] = [];
  const byId = new Map<string, { path: string; schema: AnySchemaObject }>();
  for (const file of files) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    texts.push({ name: file, text });
    const schema = readSchema(path, text);
    const id: unknown = schema.$id;
    if (typeof id !== 'string' || id.length === 0) {
      throw new ContractLoadError('contract has no $id', path);
    }
    const previous = byId.get(id);
    if (previous !== undefined) {
      throw new ContractLoadError(`duplicate $id ${id}, already used by ${previous.path}`, path);
    }
    const expected = contractId(file.slice(0, -'.json'.length));
    if (id !== expected) {
      throw new ContractLoadError(`$id ${id} does not match its file name; expected ${expected}`, path);
    }
    byId.set(id, { path, schema });
  }

  // The compiled module exists only for contracts that compiled: loading it is the same check.
  const print = precompiled ? fingerprint(texts, { ...AJV_OPTIONS, formats: FORMATS }) : '';
  const loaded = precompiled ? loadPrecompiled(print, precompiled, { codeCache: true }) : undefined;
  let ajv: Ajv | undefined;
  let validators: Validators;
  if (loaded && [...byId.keys()].every((id) => loaded.has(id))) {
    validators = loaded;
  } else {
    ajv = addAll(newAjv(precompiled !== undefined), byId);
    // Compile everything now so a broken $ref or keyword fails at start-up, not on first message.
    const compiled = new Map<string, ValidateFunction>();
    for (const [id, { path }] of byId) {
      try {
        compiled.set(id, ajv.getSchema(id)!);
      } catch (cause) {
        throw new ContractLoadError(`contract does not compile: ${String(cause)}`, path, { cause });
      }
    }
    validators = compiled;
    if (precompiled) writePrecompiled(ajv, [...byId.keys()], print, precompiled);
  }

  const names = files.map((f) => f.slice(0, -'.json'.length));
  return {
    dir: root,
    names,
    // Only tests and tools read schemas through ajv; with precompiled validators it is built on first use.
    get ajv() {
      ajv ??= addAll(newAjv(false), byId);
      return ajv;
    },
    has: (nameOrId) => byId.has(contractId(nameOrId)),
    validator<T = unknown>(nameOrId: string): ValidateFunction<T> {
      const fn = validators.get(contractId(nameOrId));
      if (!fn) throw new ContractLoadError(`unknown contract ${nameOrId}`);
      return fn as ValidateFunction<T>;
    },
  };
}

let singleton: Contracts | undefined;

/** The process-wide contracts, loaded from the repo's contracts/ on first use. */
export function contracts(): Contracts {
  singleton ??= loadContracts(findContractsDir(), { precompiled: PRECOMPILED_FILE });
  return singleton;
}
