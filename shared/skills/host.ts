// The skills one specialist serves: a SkillPool per active skill, rebuilt from the catalogue on
// every reload (hot reload keeps unchanged pools), question recognition across them, argument
// validation (ajv, the skill's inputSchema → FAILURE INVALID_ARGS) and the calls skills make:
// ctx.use(other skill), for the built-in delegation skills only, ctx.a2a (the Coordinator), and
// for skills granted capabilities.llm, ctx.llm (the model, called from here: docs/llm.md).
import { EventEmitter } from 'node:events';
import { ParleyError } from '../acl/index.js';
import type { A2aKind, SkillResult } from './handler-api.js';
import type { Catalogue, SkillDef, SkillProblem } from './catalogue.js';
import { formatErrors } from './manifest.js';
import { type CallRequest, type Claim, SkillPool } from './pool.js';
import { QuickRecogniser } from './recognition.js';
import { chatCompletion, type ChatRequest, LlmError, type LlmSettings } from '../llm/index.js';
import { catalogueTools } from './llm-tools.js';
import { A2A_SKILLS, startsAtOnce, warmExamples } from './warm-up.js';
import { resolveGrants } from './grants.js';

export interface HostOptions {
  /** Which enabled skills this specialist serves (its role's allowed skills, --skills). */
  select: (def: SkillDef) => boolean;
  maxWorkers: number;
  recogniseMs?: number;
  defaults?: { timeoutMs: number; memoryMb: number };
  a2a?: (kind: A2aKind, input: Record<string, unknown>, session_id: string) => Promise<unknown>;
  onLog?: (skill: string, line: string) => void;
  /** The install's model (PARLEY_LLM_URL): ctx.llm for skills granted capabilities.llm; skills that `require` it are served only with it. */
  llm?: { settings: LlmSettings; chat?: typeof chatCompletion };
}

interface Active {
  def: SkillDef;
  pool: SkillPool;
  quick: QuickRecogniser;
}

/**
 * A question's job, offered to recognise(): when one worker decides the question and that skill
 * may start at once, its run goes on in the same worker (SkillPool.claim) and run(…, key) takes
 * its result. `key` names the exchange (unique while it lasts).
 */
export interface JobOffer {
  key: string;
  args: Record<string, unknown>;
  session_id: string;
}

/** A run started with its recognition, not yet taken by run(); dropped if nobody takes it. */
interface Started {
  name: string;
  claim: Claim;
  timer: NodeJS.Timeout;
}

/** How long a started run waits to be taken (the exchange goes on from recognition to run at once). */
const UNTAKEN_MS = 5000;

export interface ApplyReport {
  added: string[];
  removed: string[];
  changed: string[];
  problems: SkillProblem[];
}

export class SkillHost extends EventEmitter<{ changed: [SkillDef[]]; problem: [SkillProblem] }> {
  private readonly active = new Map<string, Active>();
  private queue: Promise<unknown> = Promise.resolve();
  /** The last catalogue applied: the model's tools (ctx.llm.tools()). */
  private catalogue: Catalogue = { skills: [], problems: [] };
  private readonly started = new Map<string, Started>();

  constructor(private readonly o: HostOptions) {
    super();
  }

  skills(): SkillDef[] {
    return [...this.active.values()].map((a) => a.def).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /**
   * Brings the served set in line with a catalogue; reloads are serialised. By default a new skill
   * is served once its first worker imported the handler and answered the examples. With
   * `warmBehind` (a specialist's start, issue 15) it is served at once, its worker warming behind:
   * its calls wait for that worker in the pool, and a handler that fails there is withdrawn
   * afterwards ('problem', then 'changed'), as a reload would. That worker starts at
   * startWarming() (the system is ready) or with the first recognise() or run(), whichever is first.
   */
  apply(catalogue: Catalogue, o: { warmBehind?: boolean } = {}): Promise<ApplyReport> {
    const next = this.queue.then(() => this.applyNow(catalogue, o.warmBehind === true));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async applyNow(catalogue: Catalogue, warmBehind: boolean): Promise<ApplyReport> {
    const before = new Map([...this.active].map(([n, a]) => [n, a.def.fingerprint]));
    const problems: SkillProblem[] = [...catalogue.problems];
    this.catalogue = catalogue;
    const wanted = new Map(catalogue.skills.filter((s) => s.enabled && this.o.select(s) && this.available(s)).map((s) => [s.name, s]));
    for (const [name, a] of this.active) {
      if (wanted.get(name)?.fingerprint === a.def.fingerprint) continue;
      this.active.delete(name);
      await a.pool.close();
    }
    // Warm every new pool at once: each imports its handler in its own thread.
    await Promise.all([...wanted].filter(([name]) => !this.active.has(name)).map(async ([name, def]) => {
      const pool = this.poolFor(def);
      const active: Active = { def, pool, quick: new QuickRecogniser(def.manifest.recognise ?? {}) };
      if (warmBehind) {
        if (!compiles(def, problems)) return void (await pool.close());
        this.active.set(name, active);
        this.held.push(() => {
          if (this.active.get(name) === active) void this.warmBehind(active, pool.warm());
        });
        return;
      }
      const warming = pool.warm(); // imports the handler and runs init(): a bad handler is skipped here
      if (!compiles(def, problems)) {
        await warming.catch(() => undefined);
        return void (await pool.close());
      }
      try {
        await warming;
        await warmExamples(def, pool);
        this.active.set(name, active);
      } catch (err) {
        await pool.close();
        problems.push({ dir: def.dir, name, detail: `handler: ${(err as Error).message}` });
      }
    }));
    const now = new Map([...this.active].map(([n, a]) => [n, a.def.fingerprint]));
    const report: ApplyReport = {
      added: [...now.keys()].filter((n) => !before.has(n)),
      removed: [...before.keys()].filter((n) => !now.has(n)),
      changed: [...now.keys()].filter((n) => before.has(n) && before.get(n) !== now.get(n)),
      problems,
    };
    for (const p of problems) this.emit('problem', p);
    if (report.added.length + report.removed.length + report.changed.length > 0) this.emit('changed', this.skills());
    return report;
  }

  /** Skills served before their worker was warm (apply's `warmBehind`), still warming. */
  warming(): Promise<void> {
    return Promise.all(this.behind).then(() => undefined);
  }

  /** Starts the warm-ups apply's `warmBehind` holds: each skill's first worker, now. */
  startWarming(): void {
    if (this.held.length === 0) return; // every question calls it: no allocation then
    for (const start of this.held.splice(0)) start();
  }

  private readonly behind = new Set<Promise<void>>();
  private readonly held: Array<() => void> = [];

  private warmBehind(a: Active, warming: Promise<void>): Promise<void> {
    const done = warming.then(() => warmExamples(a.def, a.pool)).then(
      () => undefined,
      async (err: Error) => {
        // Still this pool (a reload may have replaced or removed it meanwhile): withdraw the skill.
        if (this.active.get(a.def.name) !== a) return;
        this.active.delete(a.def.name);
        await a.pool.close();
        this.emit('problem', { dir: a.def.dir, name: a.def.name, detail: `handler: ${err.message}` });
        this.emit('changed', this.skills());
      },
    ).finally(() => this.behind.delete(done));
    this.behind.add(done);
    return done;
  }

  /** A skill that requires the model is not served without one: nothing changes when it is off. */
  private available(def: SkillDef): boolean {
    return !(def.manifest.requires ?? []).includes('llm') || Boolean(this.o.llm);
  }

  private poolFor(def: SkillDef): SkillPool {
    const limits = def.manifest.limits ?? {};
    return new SkillPool({
      name: def.name,
      handlerPath: def.handlerPath,
      fingerprint: def.fingerprint,
      recognise: def.manifest.recognise ?? {},
      timeoutMs: limits.timeoutMs ?? this.o.defaults?.timeoutMs ?? 10000,
      memoryMb: limits.memoryMb ?? this.o.defaults?.memoryMb ?? 128,
      maxWorkers: this.o.maxWorkers,
      grants: resolveGrants(def.granted),
      ...(def.granted.llm && this.o.llm ? { llm: true } : {}),
      onCall: (c) => this.serveCall(def, c),
      onLog: (line) => this.o.onLog?.(def.name, line),
    });
  }

  /**
   * The skill that recognises the question best, or null (OUT_OF_SCOPE). Keywords and in-process
   * patterns are scored here (recognition.ts); only what needs a worker goes to one. With `job`,
   * when exactly one worker decides (nothing here scored) and its skill may start at once, the
   * recognition and the run are one dispatch (claim).
   */
  async recognise(question: string, job?: JobOffer): Promise<string | null> {
    this.startWarming(); // a question needs the workers now
    const lower = question.toLowerCase();
    const candidates: Active[] = [];
    const scores: number[] = [];
    let ask: number[] = [];
    for (const a of this.active.values()) {
      if (!a.quick.answers) continue;
      const here = a.quick.score(question, lower);
      if (here.worker) ask.push(candidates.length);
      candidates.push(a);
      scores.push(here.score);
    }
    // A score of 1 here is final: its own worker cannot raise it, and no skill after it can beat
    // it (the first best wins); only workers of skills before it are still asked.
    const top = scores.findIndex((s) => s >= 1);
    if (top !== -1) ask = ask.filter((i) => i < top);
    const only = ask.length === 1 ? candidates[ask[0] as number] : undefined;
    if (job && only && scores.every((s) => s === 0)) {
      const claimed = await this.claim(only, question, job);
      if (claimed !== undefined) return claimed;
    }
    const recogniseMs = this.o.recogniseMs ?? 2000;
    await Promise.all(ask.map(async (i) => {
      const s = await (candidates[i] as Active).pool.recognise(question, recogniseMs).catch(() => 0);
      if (typeof s === 'number' && s > (scores[i] as number)) scores[i] = s;
    }));
    let best: string | null = null;
    let bestScore = 0;
    scores.forEach((s, i) => {
      if (s > bestScore) [best, bestScore] = [candidates[i]?.def.name ?? null, s];
    });
    return best;
  }

  /** The claimed skill's name, null (not claimed: out of scope), or undefined (no claim was possible). */
  private async claim(a: Active, question: string, job: JobOffer): Promise<string | null | undefined> {
    const { def, pool } = a;
    if (!startsAtOnce(def) || this.started.has(job.key)) return undefined;
    const args = withoutUndeclaredHints(job.args, def.manifest.inputSchema);
    if (!def.validateInput(args)) return undefined; // recognised first: AGREE, then FAILURE INVALID_ARGS
    const pending = pool.claim(question, args, job.session_id, this.o.recogniseMs ?? 2000);
    if (!pending) return undefined; // no idle worker: recognitions keep their place ahead of queued runs
    const claim = await pending;
    if (!claim.result || claim.score <= 0) return null;
    // Taken by run() within the same turn as a rule; an exchange that ended in between (CANCEL
    // while recognising) leaves it to finish within the skill's time limit, unread.
    const timer = setTimeout(() => this.started.delete(job.key), UNTAKEN_MS);
    timer.unref();
    this.started.set(job.key, { name: def.name, claim, timer });
    return def.name;
  }

  /**
   * Validates the args (less hints the skill does not declare) against the skill's inputSchema and
   * runs it in its pool; or, given the `key` of a run recognise() already started, its result.
   */
  async run(name: string, args: Record<string, unknown>, session_id: string, signal?: AbortSignal, key?: string): Promise<{ answer: string; meta: Record<string, unknown> }> {
    this.startWarming();
    const a = this.active.get(name);
    if (!a) throw new ParleyError('INTERNAL_ERROR', `the ${name} skill is not loaded here (it was removed or disabled)`);
    const started = key === undefined ? undefined : this.started.get(key);
    let out: SkillResult;
    if (started?.name === name && started.claim.result) {
      clearTimeout(started.timer);
      this.started.delete(key as string);
      const cancel = () => started.claim.cancel();
      if (signal?.aborted) cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        out = await started.claim.result;
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    } else {
      args = withoutUndeclaredHints(args, a.def.manifest.inputSchema);
      if (!a.def.validateInput(args)) throw new ParleyError('INVALID_ARGS', `the ${name} skill's input: ${formatErrors(a.def.validateInput.errors)}`);
      out = await a.pool.run(args, session_id, signal);
    }
    return { answer: out.answer, meta: { ...out.meta, skill: name, version: a.def.manifest.version } };
  }

  private async serveCall(caller: SkillDef, c: CallRequest): Promise<unknown> {
    if (c.method === 'llm') return this.serveLlm(caller, c);
    if (c.method === 'a2a') {
      if (caller.source !== 'builtin' || !A2A_SKILLS.has(caller.name) || caller.name !== c.target) {
        throw new ParleyError('INTERNAL_ERROR', `only the built-in ${c.target} skill may send ${c.target} to the Coordinator; use ctx.use('${c.target}', …)`);
      }
      if (!this.o.a2a) throw new ParleyError('INTERNAL_ERROR', 'this specialist has no Coordinator link');
      return this.o.a2a(c.target as A2aKind, c.input, c.session_id);
    }
    if (c.target === caller.name || !(caller.manifest.uses ?? []).includes(c.target)) {
      throw new ParleyError('INTERNAL_ERROR', `the ${caller.name} skill may not use ${c.target} (skill.json "uses" lists what it may call)`);
    }
    if (!this.active.has(c.target)) throw new ParleyError('INTERNAL_ERROR', `the ${c.target} skill is not served by this specialist (its role does not allow it)`);
    return this.run(c.target, c.input, c.session_id);
  }

  /** ctx.llm: the HTTP call happens here, with the key; the skill gets the completion only. */
  private async serveLlm(caller: SkillDef, c: CallRequest): Promise<unknown> {
    const llm = this.o.llm;
    if (!caller.granted.llm || !llm) throw new ParleyError('INTERNAL_ERROR', `LLM_DENIED: the ${caller.name} skill may not ask the model (skill.json capabilities.llm, granted, and PARLEY_LLM_URL set)`);
    if (c.target === 'tools') return catalogueTools(this.catalogue.skills);
    const req = c.input as unknown as ChatRequest;
    if (!Array.isArray(req.messages) || req.messages.length === 0) throw new ParleyError('INVALID_ARGS', 'ctx.llm.chat needs messages');
    try {
      return await (llm.chat ?? chatCompletion)(llm.settings, { messages: req.messages, ...(Array.isArray(req.tools) ? { tools: req.tools } : {}) });
    } catch (err) {
      const e = err instanceof LlmError ? err : new LlmError('LLM_BAD_RESPONSE', (err as Error).message);
      throw new ParleyError(e.code === 'LLM_TIMEOUT' ? 'TIMEOUT' : 'INTERNAL_ERROR', e.message);
    }
  }

  async close(): Promise<void> {
    this.held.length = 0;
    for (const s of this.started.values()) clearTimeout(s.timer);
    this.started.clear();
    for (const a of this.active.values()) await a.pool.close();
    this.active.clear();
  }
}

/** Compiles the skill's inputSchema (only the skills served: manifest.ts InputValidator); a problem if it cannot. */
function compiles(def: SkillDef, problems: SkillProblem[]): boolean {
  try {
    def.validateInput.ready();
    return true;
  } catch (err) {
    problems.push({ dir: def.dir, name: def.name, detail: `skill.json: /inputSchema does not compile: ${(err as Error).message}` });
    return false;
  }
}

/**
 * Context the Coordinator adds to every question (args.zone: the person's time zone, issue 16).
 * A skill that declares it in its inputSchema gets it; to any other it is not sent, so a strict
 * schema (additionalProperties: false) does not turn a hint into INVALID_ARGS.
 */
const HINTS = ['zone'] as const;

export function withoutUndeclaredHints(args: Record<string, unknown>, schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const declared = (schema?.properties ?? {}) as Record<string, unknown>;
  const drop = HINTS.filter((h) => h in args && !(h in declared));
  if (drop.length === 0) return args;
  const out = { ...args };
  for (const h of drop) delete out[h];
  return out;
}
