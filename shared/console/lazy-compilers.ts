// The console's route schemas compiled on each route's first request (issue 15, `npm start`
// ≤ 1.5 s): fastify compiles every route's validator (ajv) and response serializer
// (fast-json-stringify) when it starts, ≈ 100 ms of the console's start-up CPU for routes that
// are mostly never called in a session. These are fastify's own default compilers, only later.
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * A compiler factory whose routes compile on first use. fastify reads a
 * validator's `errors` after each call and its `schemaEnv` (ajv's: then it passes the parent, so
 * a root value can be coerced) before: the wrapper gives both from the compiled function.
 */
export type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };
export type Builder = (...args: unknown[]) => (route: unknown) => Compiled;
export function lazyRoutes(builder: Builder): Builder {
  return (...args: unknown[]) => {
    const compile = builder(...args);
    return (route: unknown) => {
      let fn: Compiled | undefined;
      const compiled = (): Compiled => (fn ??= compile(route));
      const wrapper = (...a: unknown[]): unknown => {
        const f = compiled();
        const out = f(...a);
        wrapper.errors = f.errors;
        return out;
      };
      wrapper.errors = undefined as unknown;
      Object.defineProperty(wrapper, 'schemaEnv', { get: () => compiled().schemaEnv });
      return wrapper;
    };
  };
}

/** fastify's `schemaController.compilersFactory` with its own compilers, each route compiled on first use. */
export function lazyCompilers(): { buildValidator: ReturnType<typeof AjvCompiler>; buildSerializer: ReturnType<typeof SerializerSelector> } {
  return {
    buildValidator: lazyRoutes(AjvCompiler() as unknown as Builder) as unknown as ReturnType<typeof AjvCompiler>,
    buildSerializer: lazyRoutes(SerializerSelector() as unknown as Builder) as unknown as ReturnType<typeof SerializerSelector>,
  };
}
