// Generates shared/contracts/types.gen.ts from contracts/*.json (fastify habit: generated code is
// checked in and CI fails when it is stale).
//   node dist/scripts/gen-types.js          rewrite the file
//   node dist/scripts/gen-types.js --check  exit 1 when the file is not current
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { findContractsDir } from '../shared/contracts/index.js';

const BANNER = `/* eslint-disable */
/**
 * GENERATED FILE - DO NOT EDIT.
 * Generated from contracts/*.json by scripts/gen-types.ts (json-schema-to-typescript).
 * Regenerate: npx tsc -p tsconfig.json && npm run gen:types   (CI: npm run check:types)
 */`;

export interface GenPaths {
  /** Repo-root contracts/ directory. */
  contractsDir: string;
  /** The checked-in output, <repo>/shared/contracts/types.gen.ts. */
  outFile: string;
}

/** Paths resolved from the repo root, found by walking up from this module (works from dist/). */
export function defaultPaths(from: string = dirname(fileURLToPath(import.meta.url))): GenPaths {
  const contractsDir = findContractsDir(from);
  return { contractsDir, outFile: join(dirname(contractsDir), 'shared', 'contracts', 'types.gen.ts') };
}

/**
 * One synthetic root schema: ContractTypes maps each contract name to its type, and the
 * definitions of definition-only files (common.json) are exposed so every one gets a name.
 * Files are read in sorted order, so the output is deterministic.
 */
function rootSchema(contractsDir: string): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  const definitions: Record<string, JSONSchema> = {};
  for (const file of readdirSync(contractsDir).filter((f) => f.endsWith('.json')).sort()) {
    const schema = JSON.parse(readFileSync(join(contractsDir, file), 'utf8')) as JSONSchema;
    const isLibrary = schema.type === undefined && schema.definitions !== undefined;
    if (!isLibrary) {
      properties[file.slice(0, -'.json'.length)] = { $ref: file };
      continue;
    }
    for (const name of Object.keys(schema.definitions ?? {}).sort()) {
      definitions[name] = { $ref: `${file}#/definitions/${name}` };
    }
  }
  return {
    title: 'ContractTypes',
    description: 'Maps each contract file name (contracts/<name>.json) to its TypeScript type.',
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
    definitions,
  };
}

/** The full text types.gen.ts should have for the given contracts. */
export async function generateTypes(contractsDir: string): Promise<string> {
  const body = await compile(rootSchema(contractsDir), 'ContractTypes', {
    cwd: contractsDir, // relative $refs ("common.json#/...") resolve to the sibling files
    bannerComment: BANNER,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
    format: true,
  });
  return body.endsWith('\n') ? body : `${body}\n`;
}

export interface CheckResult {
  current: boolean;
  outFile: string;
  message: string;
}

/** Compares the checked-in file with a fresh generation; never writes. */
export async function checkTypes(paths: GenPaths = defaultPaths()): Promise<CheckResult> {
  const expected = await generateTypes(paths.contractsDir);
  const actual = existsSync(paths.outFile) ? readFileSync(paths.outFile, 'utf8') : undefined;
  const shown = relative(process.cwd(), paths.outFile) || paths.outFile;
  if (actual === expected) return { current: true, outFile: paths.outFile, message: `${shown} is current` };
  const why = actual === undefined ? 'is missing' : 'is out of date with contracts/';
  return {
    current: false,
    outFile: paths.outFile,
    message: `${shown} ${why}. Run: npx tsc -p tsconfig.json && npm run gen:types`,
  };
}

/** Rewrites the output file; returns whether its content changed. */
export async function writeTypes(paths: GenPaths = defaultPaths()): Promise<boolean> {
  const text = await generateTypes(paths.contractsDir);
  const before = existsSync(paths.outFile) ? readFileSync(paths.outFile, 'utf8') : undefined;
  if (before === text) return false;
  writeFileSync(paths.outFile, text);
  return true;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--check')) {
    const result = await checkTypes();
    (result.current ? console.log : console.error)(result.message);
    return result.current ? 0 : 1;
  }
  const paths = defaultPaths();
  const changed = await writeTypes(paths);
  console.log(`${relative(process.cwd(), paths.outFile)} ${changed ? 'written' : 'unchanged'}`);
  return 0;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err: unknown) => { console.error(err); process.exitCode = 1; },
  );
}
