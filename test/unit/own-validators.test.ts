// The skills' own validators compiled ahead of time (shared/skills/own-validators.ts, issue 15
// "ready ≤ 1.5 s"): they must judge exactly as ajv compiling at start did, and a file that is not
// the one this code would write (stale, foreign, corrupt) must never be used.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Ajv } from 'ajv';
import { checkSkillManifest, draft07Check, isDraft07, MANIFEST_SCHEMA, precompiledValidator, ROLE_FILE_SCHEMA } from '../../shared/skills/index.js';

const skillsDist = path.dirname(fileURLToPath(new URL('../../shared/skills/own-validators.js', import.meta.url)));
const genFile = (name: string) => path.join(skillsDist, `${name}.gen.cjs`);

// Schemas a skill author might write, valid and not (draft-07 meta-schema violations).
const INPUT_SCHEMAS: unknown[] = [
  { type: 'object', properties: { question: { type: 'string', minLength: 1 } } },
  { type: 'object', required: ['a'], properties: { a: { type: 'number', minimum: 0 }, b: { enum: [1, 2] } }, additionalProperties: false },
  { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', pattern: '^[a-z]+$' },
  true, false, {},
  { type: 'strng' },
  { type: 'object', required: 'question' },
  { properties: { a: { minLength: -1 } } },
  { enum: [] },
  { items: [{ type: 'string' }, 3] },
  { additionalProperties: 'no' },
  { type: ['string', 'string'] },
];

describe('Skills [own validators] compiled ahead of time', () => {
  it('meta-checks inputSchemas exactly as ajv\'s own validateSchema (verdict and message)', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const check = draft07Check();
    for (const schema of INPUT_SCHEMAS) {
      const expected = ajv.validateSchema(schema as object) as boolean;
      expect(check(schema), JSON.stringify(schema)).to.equal(expected);
      if (!expected) expect(new Ajv({ allErrors: true, strict: false }).errorsText(check.errors)).to.equal(ajv.errorsText(ajv.errors));
    }
  });

  it('gives a manifest with an invalid inputSchema the reason ajv gave, and compiles a valid one', () => {
    const base = { name: 'x', description: 'd', version: '1.0.0', handler: './handler.js' };
    const bad = checkSkillManifest({ ...base, inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } });
    expect(!bad.ok && bad.detail).to.match(/^skill\.json: \/inputSchema does not compile: schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/);
    const good = checkSkillManifest({ ...base, inputSchema: { type: 'object', required: ['question'], properties: { question: { type: 'string' } } } });
    expect(good.ok && good.validateInput({ question: 'q' })).to.equal(true);
    expect(good.ok && good.validateInput({})).to.equal(false);
    // Another meta-schema is ajv's to judge, as before (this ajv does not know 2019-09).
    const other = checkSkillManifest({ ...base, inputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' } });
    expect(!other.ok && other.detail).to.match(/does not compile: no schema with key or ref/);
    expect(isDraft07({ $schema: 'http://json-schema.org/draft-07/schema' })).to.equal(true);
  });

  it('validates skill.json and the roles file as ajv compiling them does', () => {
    const samples: Array<[object, unknown[]]> = [
      [MANIFEST_SCHEMA, [{ name: 'a', description: 'd', version: '1.0.0', handler: './h.js' }, { name: 'A b' }, {}, { name: 'a', description: 'd', version: 'one', handler: '../x.js' }]],
      [ROLE_FILE_SCHEMA, [{ roles: { r: { skills: ['*'], maxConcurrent: 2 } } }, { roles: { R: { skills: [], maxConcurrent: 1 } } }, { roles: { r: { skills: ['a'] } } }, []]],
    ];
    for (const [schema, inputs] of samples) {
      const fresh = new Ajv({ allErrors: true, strict: false, validateSchema: false }).compile(schema);
      const pre = precompiledValidator(schema === MANIFEST_SCHEMA ? 'skill-manifest' : 'role-file', schema);
      for (const input of inputs) {
        expect(pre(input), JSON.stringify(input)).to.equal(fresh(input));
        expect(pre.errors ?? null).to.deep.equal(fresh.errors ?? null);
      }
    }
  });

  it('never uses a file written for another schema, and rewrites it; a corrupt file only costs a compile', () => {
    const name = `test-own-${process.pid}`;
    try {
      // A file that claims this name but was compiled from another schema: accepts everything.
      fs.writeFileSync(genFile(name), `"use strict";exports[${JSON.stringify(name)}] = () => true;\nexports.__fingerprint = "0000";\n`);
      const v = precompiledValidator(name, { type: 'integer' });
      expect(v(1)).to.equal(true);
      expect(v('not a number')).to.equal(false);
      expect(fs.readFileSync(genFile(name), 'utf8')).to.not.include('"0000"');
      const corrupt = `${name}-corrupt`;
      fs.writeFileSync(genFile(corrupt), 'this is not javascript {');
      const w = precompiledValidator(corrupt, { type: 'string' });
      expect(w('s')).to.equal(true);
      expect(w(2)).to.equal(false);
      fs.rmSync(genFile(corrupt), { force: true });
    } finally {
      fs.rmSync(genFile(name), { force: true });
    }
  });
});
