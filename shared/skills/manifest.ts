// skill.json: what a skill is (plan part 1, "skill.json Format", translated to Parley): name,
// description, version, inputSchema (the ASK_EXPERT args it accepts), handler (an ES module in
// the skill's folder), how it recognises the questions it answers, and its limits. Validated with
// ajv; a manifest that does not validate, an inputSchema that does not compile or a pattern that
// is no regular expression makes the skill bad (reported and skipped), never a crash.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { draft07Check, isDraft07, precompiledValidator } from './own-validators.js';
import { inProcessProblem, LINEAR_ENGINE, linearRegExp, type Recognition } from './recognition.js';

export type { Recognition } from './recognition.js';

export interface SkillManifest {
  name: string;
  description: string;
  version: string;
  inputSchema?: Record<string, unknown>;
  handler: string;
  recognise?: Recognition;
  topics?: string[];
  examples?: string[];
  limits?: { timeoutMs?: number; memoryMb?: number };
  /** Other skills this one calls through ctx.use(name, input) (delegation, see docs/skills.md). */
  uses?: string[];
  /** What the sandbox lets it have beyond its own code, once the operator granted it (docs/skills.md). */
  capabilities?: Capabilities;
  /**
   * Services this install must have for the skill to be served at all ("llm": PARLEY_LLM_URL);
   * without them the skill is left out quietly (not a problem: an optional feature that is off).
   */
  requires?: Array<'llm'>;
}

/**
 * A skill's capabilities (docs/skills.md "Sandbox"): environment variables it may read, paths it
 * may read (absolute, or `${VAR}` naming a granted variable's value), and network access. A skill
 * gets none of them unless skill.json declares it and the operator granted it (built-ins are the
 * operator's own code: what they declare is granted).
 */
export interface Capabilities {
  env?: string[];
  read?: string[];
  network?: boolean;
  /** ctx.llm: chat completions through the specialist process, which holds the key (docs/llm.md). */
  llm?: boolean;
}

export const SKILL_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

const strings = (maxItems: number, maxLength: number) => ({
  type: 'array', maxItems, items: { type: 'string', minLength: 1, maxLength },
});

export const MANIFEST_SCHEMA = {
  $id: 'https://parley.local/skills/skill.json',
  type: 'object',
  required: ['name', 'description', 'version', 'handler'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', pattern: SKILL_NAME.source },
    description: { type: 'string', minLength: 1, maxLength: 1000 },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+(?:[-+][0-9A-Za-z.-]+)?$' },
    inputSchema: { type: 'object' },
    // Inside the skill's folder: ./x.js, never ../ or an absolute path.
    handler: { type: 'string', pattern: '^\\./(?!.*\\.\\.)[A-Za-z0-9_./-]+\\.m?js$', maxLength: 200 },
    recognise: {
      type: 'object',
      additionalProperties: false,
      properties: {
        patterns: strings(50, 500),
        keywords: strings(100, 100),
        module: { type: 'boolean' },
        inProcess: { type: 'boolean' },
        score: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      },
    },
    topics: strings(100, 100),
    examples: strings(20, 300),
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeoutMs: { type: 'integer', minimum: 10, maximum: 600000 },
        memoryMb: { type: 'integer', minimum: 8, maximum: 4096 },
      },
    },
    uses: { type: 'array', maxItems: 20, items: { type: 'string', pattern: SKILL_NAME.source } },
    capabilities: {
      type: 'object',
      additionalProperties: false,
      properties: {
        env: { type: 'array', maxItems: 20, items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,63}$' } },
        read: { type: 'array', maxItems: 20, items: { type: 'string', pattern: '^(/|\\$\\{[A-Z][A-Z0-9_]{0,63}\\}$)', maxLength: 500 } },
        network: { type: 'boolean' },
        llm: { type: 'boolean' },
      },
    },
    requires: { type: 'array', maxItems: 5, items: { enum: ['llm'] } },
  },
} as const;

/** Without an inputSchema a skill takes the seed's ASK_EXPERT args: {question}. */
export const DEFAULT_INPUT_SCHEMA = {
  type: 'object',
  required: ['question'],
  properties: { question: { type: 'string', minLength: 1 } },
} as const;

// Our own schemas (skill.json here, the roles file in roles.ts) are constants of this code, and
// the draft-07 meta-schema checks the skills' inputSchemas: all three are compiled ahead of time
// (own-validators.ts), so a specialist's start compiles only its skills' inputSchemas.
// The skills' inputSchemas are written by skill authors: meta-checked, strict off.
// A skill's inputSchema validates every question's args in the specialist's main thread
// (host.run): a backtracking `pattern` there (e.g. ^(a+)+$ took 13 s on 28 characters) would
// stall the specialist. Its patterns run on the linear-time engine; one that cannot makes the
// inputSchema not compile (the skill is reported and skipped). Without the engine: as before.
// Built on first use: the console, the supervisor and the CLIs load this module at start-up but
// check a manifest only on an upload or a spawn.
// Two ajvs for inputSchemas: draft-07 ones are meta-checked by the precompiled validator first
// (compileInput), any other `$schema` by ajv itself as before.
let draft07Ajv: Ajv | undefined;
let otherAjv: Ajv | undefined;
function newInputAjv(validateSchema: boolean): Ajv {
  const regExp = LINEAR_ENGINE ? { code: { regExp: Object.assign((pattern: string) => linearRegExp(pattern), { code: 'linearRegExp' }) } } : {};
  return new Ajv({ allErrors: true, strict: false, validateSchema, ...regExp });
}

/** The precompiled skill.json validator (own-validators.ts). */
export const manifestValidator = (): ValidateFunction<SkillManifest> => precompiledValidator<SkillManifest>('skill-manifest', MANIFEST_SCHEMA);

/**
 * A skill's inputSchema validator, compiled on its first call (issue 15, `npm start`): every
 * specialist reads every skill's manifest but serves one or two, and compiling all nine was
 * ≈ 40 ms of each specialist's start. What makes a schema fail to compile is found at once all
 * the same (the meta-schema, a pattern the linear-time engine cannot run); `ready()` compiles now
 * and throws what compile throws (a `$ref` to nowhere): the skill host calls it for the skills it
 * serves, so such a skill is still reported and skipped at start.
 */
export type InputValidator = ValidateFunction & { ready(): void };

function lazyInput(compile: () => ValidateFunction): InputValidator {
  let fn: ValidateFunction | undefined;
  const v = Object.assign((data: unknown): boolean => {
    fn ??= compile();
    const ok = fn(data) as boolean;
    v.errors = fn.errors;
    return ok;
  }, { errors: null as ValidateFunction['errors'], ready: () => void (fn ??= compile()) });
  return v as unknown as InputValidator;
}

/** Each `pattern` and `patternProperties` key of a schema (not inside data: const, enum, default, examples). */
function patternsOf(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const x of schema) patternsOf(x, out);
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'const' || k === 'enum' || k === 'default' || k === 'examples') continue;
      if (k === 'pattern' && typeof v === 'string') out.push(v);
      else if (k === 'patternProperties' && v && typeof v === 'object' && !Array.isArray(v)) out.push(...Object.keys(v));
      patternsOf(v, out);
    }
  }
  return out;
}

/**
 * Checks a skill's inputSchema as ajv's compile() does and returns its validator: against its
 * meta-schema first (the same "schema is invalid: …" error). Draft-07, ajv's default, uses the
 * precompiled check and compiles on first use; a schema that names another `$schema` goes
 * through an ajv that meta-checks it, compiled now as before.
 */
function compileInput(schema: object): InputValidator {
  if (!isDraft07(schema)) {
    const fn = (otherAjv ??= newInputAjv(true)).compile(schema);
    return Object.assign(fn, { ready: () => undefined });
  }
  const ajv = (draft07Ajv ??= newInputAjv(false));
  const check = draft07Check();
  if (!check(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(check.errors)}`);
  if (LINEAR_ENGINE) for (const p of patternsOf(schema)) linearRegExp(p);
  return lazyInput(() => ajv.compile(schema));
}

export const formatErrors = (errors: readonly ErrorObject[] | null | undefined): string =>
  (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');

export type ManifestCheck =
  | { ok: true; manifest: SkillManifest; validateInput: InputValidator }
  | { ok: false; detail: string };

/** Validates a parsed skill.json; `folder` must equal the name (one skill per folder). */
export function checkSkillManifest(raw: unknown, folder?: string): ManifestCheck {
  const checkManifest = manifestValidator();
  if (!checkManifest(raw)) return { ok: false, detail: `skill.json: ${formatErrors(checkManifest.errors)}` };
  const m = raw;
  if (folder !== undefined && folder !== m.name) return { ok: false, detail: `skill.json: name ${JSON.stringify(m.name)} differs from its folder ${JSON.stringify(folder)}` };
  for (const p of m.recognise?.patterns ?? []) {
    try {
      new RegExp(p, 'i');
    } catch (err) {
      return { ok: false, detail: `skill.json: /recognise/patterns: ${(err as Error).message}` };
    }
  }
  const inProcess = m.recognise?.inProcess ? inProcessProblem(m.recognise.patterns ?? []) : undefined;
  if (inProcess) return { ok: false, detail: `skill.json: /recognise/inProcess: ${inProcess}` };
  let validateInput: InputValidator;
  try {
    validateInput = compileInput(m.inputSchema ?? DEFAULT_INPUT_SCHEMA);
  } catch (err) {
    return { ok: false, detail: `skill.json: /inputSchema does not compile: ${(err as Error).message}` };
  }
  return { ok: true, manifest: m, validateInput };
}
