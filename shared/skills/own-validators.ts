// Parley's constant schemas for skills (skill.json, the roles file) and the JSON Schema draft-07
// meta-schema that checks a skill author's inputSchema, compiled ahead of time the way the
// contracts are (shared/contracts/precompiled.ts): the first process that needs one compiles it
// and writes ajv's standalone code beside this module (dist/, build output), keyed by a
// fingerprint of the schema, ajv's version and the options, so a stale file is never used.
// Compiling them cost a specialist 60–100 ms of CPU at every start (issue 15, "ready ≤ 1.5 s"):
// ajv compiles the meta-schema before the first schema it meta-checks (≈ 55 ms), and the first
// compile of a process warms ajv's code generator.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { fingerprint, loadPrecompiled, writePrecompiled } from '../contracts/index.js';

const require = createRequire(import.meta.url);

/** The draft-07 meta-schema, as ajv ships and uses it for `validateSchema`. */
const DRAFT_07 = require('ajv/dist/refs/json-schema-draft-07.json') as { $id: string };

/**
 * ajv's options for these validators: those of the ajv each one replaced (manifest.ts). That ajv
 * had no formats, so the meta-schema's uri, uri-reference and regex passed anything; `true` says
 * so without a warning per format when this compiles.
 */
const OPTIONS = { allErrors: true, strict: false, validateSchema: false, formats: { uri: true, 'uri-reference': true, regex: true } } as const;

const loaded = new Map<string, ValidateFunction>();

/**
 * The validator of `schema`, compiled once per installation (file `<name>.gen.cjs` beside this
 * module), else compiled here and written for the next process. `name` must be unique per schema.
 */
export function precompiledValidator<T = unknown>(name: string, schema: object): ValidateFunction<T> {
  const known = loaded.get(name);
  if (known) return known as ValidateFunction<T>;
  const file = fileURLToPath(new URL(`./${name}.gen.cjs`, import.meta.url));
  const print = fingerprint([{ name, text: JSON.stringify(schema) }], OPTIONS);
  let fn = loadPrecompiled(print, file)?.get(name);
  if (!fn) {
    // meta: false, so that the draft-07 meta-schema can be compiled as an ordinary schema here.
    const ajv = new Ajv({ ...OPTIONS, meta: false, code: { source: true } });
    ajv.addSchema(schema, name);
    fn = ajv.getSchema(name) as ValidateFunction;
    writePrecompiled(ajv, [name], print, file);
  }
  loaded.set(name, fn);
  return fn as ValidateFunction<T>;
}

/** Checks a schema against the draft-07 meta-schema, as ajv's `validateSchema` does. */
export const draft07Check = (): ValidateFunction => precompiledValidator('json-schema-draft-07', DRAFT_07);

/** `$schema` values that name draft-07 (ajv's default meta-schema); absent counts as draft-07. */
export function isDraft07(schema: unknown): boolean {
  const declared = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  return declared === undefined || (typeof declared === 'string' && declared.replace(/#$/, '') === DRAFT_07.$id.replace(/#$/, ''));
}
