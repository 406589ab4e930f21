// The console compiles each route's schemas on that route's first request
// (shared/console/lazy-compilers.ts): nothing at start, once per route, and fastify sees the same
// validation errors, coercion and response filtering as with its compilers at start.
import { expect } from 'chai';
import Fastify from 'fastify';
import { type Builder, type Compiled, lazyCompilers, lazyRoutes } from '../../shared/console/index.js';

describe('Console [start] route schemas compiled on first use', () => {
  it('compiles a route once, at its first call, and carries its errors and schemaEnv', () => {
    const compiled: string[] = [];
    const builder: Builder = () => (route) => {
      compiled.push(String(route));
      const fn: Compiled = Object.assign((x: unknown) => {
        const ok = x === 'ok';
        fn.errors = ok ? null : [{ message: `bad ${String(x)}` }];
        return ok;
      }, { schemaEnv: { route } as unknown, errors: undefined as unknown });
      return fn;
    };
    const routes = lazyRoutes(builder)();
    const a = routes('a');
    const b = routes('b');
    expect(compiled, 'nothing compiled when the routes are set up').to.deep.equal([]);
    expect(a('no')).to.equal(false);
    expect(a.errors).to.deep.equal([{ message: 'bad no' }]);
    expect(a('ok')).to.equal(true);
    expect(a.errors).to.equal(null);
    expect(compiled).to.deep.equal(['a']);
    expect(b.schemaEnv).to.deep.equal({ route: 'b' });
    expect(compiled).to.deep.equal(['a', 'b']);
  });

  it("behaves as fastify's own compilers: 400 with ajv's message, coercion, and the response filtered", async () => {
    for (const lazy of [false, true]) {
      const app = Fastify({ ajv: { customOptions: { allErrors: true, coerceTypes: 'array' } }, ...(lazy ? { schemaController: { compilersFactory: lazyCompilers() } } : {}) });
      app.post('/t', {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' }, kind: { type: 'string' } } } },
        },
      }, async (req) => ({ n: (req.body as { n: number }).n, kind: typeof (req.body as { n: unknown }).n, secret: 'not in the schema' }));
      await app.ready();
      const bad = await app.inject({ method: 'POST', url: '/t', payload: { m: 1 } });
      expect([bad.statusCode, bad.json().message], `lazy ${lazy}`).to.deep.equal([400, "body must have required property 'n'"]);
      const good = await app.inject({ method: 'POST', url: '/t', payload: { n: '7' } });
      expect(good.json(), `lazy ${lazy}`).to.deep.equal({ n: 7, kind: 'number' });
      await app.close();
    }
  });
});
