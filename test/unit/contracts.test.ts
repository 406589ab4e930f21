import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Performative } from '../../shared/acl/index.js';
import {
  CONTENT_KINDS, ContractLoadError, contracts, findContractsDir, loadContracts, parseEnvelope,
  validateEnvelope, type ValidationResult,
} from '../../shared/contracts/index.js';
import { checkTypes } from '../../scripts/gen-types.js';

// seed contract §1 header, with the seed's own example values.
function seedEnvelope(performative: string, content: unknown): Record<string, unknown> {
  return {
    performative, sender: 'Presenter', receiver: 'Coordinator', conversation_id: 'sess-abc123',
    reply_with: 'msg-uuid', in_reply_to: 'msg-uuid', ontology: 'MAS.Core', protocol: 'fipa-request',
    language: 'application/json', timestamp: '2025-11-07T19:55:00Z', content,
  };
}

function failure(result: ValidationResult): Extract<ValidationResult, { ok: false }> {
  if (result.ok) expect.fail('expected the envelope to be rejected');
  return result;
}

const codeOf = (performative: string, content: unknown): string =>
  failure(validateEnvelope(seedEnvelope(performative, content))).code;

// The literal examples of seed contract §2, in the performative the seed names for each.
const SEED_EXAMPLES: ReadonlyArray<[string, Performative, Record<string, unknown>]> = [
  ['§2.1 REQUEST.USER_MSG', 'REQUEST', { type: 'USER_MSG', text: '…', attachments: [] }],
  ['§2.2 REQUEST.REGISTER', 'REQUEST', { type: 'REGISTER', profile: { jid: 'specialist@xmpp…', name: 'Specialist',
    version: '1.0.0', capabilities: ['ASK_EXPERT'], description: '…' } }],
  ['§2.2 INFORM.HEARTBEAT', 'INFORM', { type: 'HEARTBEAT', jid: 'specialist@xmpp…' }],
  ['§2.2 QUERY-REF.need', 'QUERY-REF', { need: 'ASK_EXPERT' }],
  ['§2.2 INFORM.candidates', 'INFORM', { candidates: ['specialist@xmpp…'] }],
  ['§2.3 REQUEST.ASK_EXPERT', 'REQUEST', { type: 'ASK_EXPERT', args: { question: '…' },
    context_ref: { session_id: 'sess-abc123' } }],
  ['§2.3 AGREE', 'AGREE', { status: 'accepted' }],
  ['§2.3 REFUSE', 'REFUSE', { reason: 'busy' }],
  ['§2.3 INFORM.RESULT', 'INFORM', { type: 'RESULT', result: { answer: '…', meta: {} } }],
  // §2.3 FAILURE {"reason":"TIMEOUT|INVALID_ARGS|INTERNAL_ERROR"} and the §4 dictionary
  ...['TIMEOUT', 'INVALID_ARGS', 'INTERNAL_ERROR', 'NO_CANDIDATE', 'SPECIALIST_TIMEOUT', 'KB_UNAVAILABLE',
    'KB_STORE_FAILED'].map((reason): [string, Performative, Record<string, unknown>] =>
    [`§2.3/§4 FAILURE ${reason}`, 'FAILURE', { reason }]),
  ['§2.4 INFORM.STORE_FACT', 'INFORM', { type: 'STORE_FACT', fact: {
    session_id: 'sess-abc123', slot: 'answer', value: '…', confidence: 0.9, ts: '2025-11-07T19:55:00Z' } }],
  ['§2.4 QUERY-REF.GET_FACTS', 'QUERY-REF', { type: 'GET_FACTS', filter: { session_id: 'sess-abc123', slot: 'answer' } }],
  ['§2.4 INFORM.FACTS', 'INFORM', { facts: [{ slot: 'answer', value: '…', confidence: 0.9, ts: '…' }] }],
  ['§2.5 INFORM.PRESENTER_REPLY', 'INFORM', { type: 'PRESENTER_REPLY', text: '…', rich: {} }],
];

describe('contracts [load]', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-contracts-'));
    cpSync(findContractsDir(), dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads every contract and every content kind names one', () => {
    const loaded = loadContracts(dir);
    expect(loaded.names).to.include.members(['envelope', 'common', 'error-content']);
    for (const row of CONTENT_KINDS) expect(loaded.has(row.contract), row.contract).to.equal(true);
  });

  it('refuses a duplicate $id', () => {
    writeFileSync(join(dir, 'zz.json'), JSON.stringify({ $id: 'https://parley.local/contracts/agree.json' }));
    expect(() => loadContracts(dir)).to.throw(ContractLoadError, /duplicate \$id/);
  });

  it('refuses a contract without $id', () => {
    writeFileSync(join(dir, 'nameless.json'), JSON.stringify({ type: 'object' }));
    expect(() => loadContracts(dir)).to.throw(ContractLoadError, /no \$id.*nameless\.json/);
  });

  it('refuses an $id that does not match the file name', () => {
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ $id: 'https://parley.local/contracts/other.json' }));
    expect(() => loadContracts(dir)).to.throw(ContractLoadError, /does not match its file name/);
  });

  it('refuses a contract that does not compile', () => {
    writeFileSync(join(dir, 'broken.json'), JSON.stringify({
      $id: 'https://parley.local/contracts/broken.json', $ref: 'missing.json#/definitions/X' }));
    expect(() => loadContracts(dir)).to.throw(ContractLoadError, /does not compile/);
  });

  it('finds the repo contracts/ from the compiled module directory', () => {
    expect(contracts().dir).to.equal(findContractsDir());
  });
});

describe('contracts [seed §2] every seed example validates', () => {
  for (const [name, performative, content] of SEED_EXAMPLES) {
    it(name, () => {
      const result = validateEnvelope(seedEnvelope(performative, content));
      expect(result, JSON.stringify(result)).to.include({ ok: true });
    });
  }

  it('accepts the reserved sender_did and signature fields', () => {
    const env = { ...seedEnvelope('AGREE', { status: 'accepted' }), sender_did: 'did:key:z6Mk', signature: 'c2ln' };
    expect(validateEnvelope(env)).to.include({ ok: true });
  });
});

describe('contracts [validate] rejects bad input', () => {
  it('refuses a body that is not JSON with INVALID_JSON', () => {
    expect(failure(parseEnvelope('{"performative":')).code).to.equal('INVALID_JSON');
  });

  it('refuses a message that is not an object with SCHEMA_VIOLATION', () => {
    for (const raw of [null, 'REQUEST', 42, [seedEnvelope('AGREE', { status: 'accepted' })]]) {
      expect(failure(validateEnvelope(raw)).code).to.equal('SCHEMA_VIOLATION');
    }
  });

  it('refuses a missing header with the field named', () => {
    const { conversation_id: _dropped, ...env } = seedEnvelope('AGREE', { status: 'accepted' });
    const result = failure(validateEnvelope(env));
    expect(result.code).to.equal('SCHEMA_VIOLATION');
    expect(result.errors).to.deep.include({ instancePath: '', keyword: 'required',
      message: "must have required property 'conversation_id'" });
  });

  it('refuses a NEED max_results that is not an integer from 1 to 100 (FIPA SC00023 max-results)', () => {
    for (const max of [0, -1, 101, 2.5, '8', null]) expect(codeOf('QUERY-REF', { need: 'ASK_EXPERT', max_results: max }), String(max)).to.equal('SCHEMA_VIOLATION');
    expect(validateEnvelope(seedEnvelope('QUERY-REF', { need: 'ASK_EXPERT', max_results: 8 })).ok).to.equal(true);
  });

  it('refuses an unknown header field', () => {
    const env = { ...seedEnvelope('AGREE', { status: 'accepted' }), priority: 'high' };
    expect(failure(validateEnvelope(env)).errors[0]?.keyword).to.equal('additionalProperties');
  });

  it('refuses a timestamp that is not UTC ISO-8601 with Z', () => {
    for (const ts of ['2025-11-07T19:55:00+01:00', '2025-11-07 19:55', 'yesterday', '2025-13-07T19:55:00Z']) {
      const result = failure(validateEnvelope({ ...seedEnvelope('AGREE', { status: 'accepted' }), timestamp: ts }));
      expect(result.code, ts).to.equal('SCHEMA_VIOLATION');
      expect(result.errors.map((e) => e.instancePath), ts).to.include('/timestamp');
    }
  });

  it('refuses an unknown performative with UNKNOWN_PERFORMATIVE', () => {
    const result = failure(validateEnvelope(seedEnvelope('SHOUT', { status: 'accepted' })));
    expect(result.code).to.equal('UNKNOWN_PERFORMATIVE');
    expect(result.detail).to.contain('SHOUT');
  });

  it('accepts content of exactly 64 kB and refuses one byte more with CONTENT_TOO_LARGE', () => {
    const base = { type: 'RESULT', result: { answer: 'a', meta: { blob: '' } } };
    const room = 64 * 1024 - Buffer.byteLength(JSON.stringify(base));
    const fits = { type: 'RESULT', result: { answer: 'a', meta: { blob: 'x'.repeat(room) } } };
    expect(validateEnvelope(seedEnvelope('INFORM', fits))).to.include({ ok: true });
    fits.result.meta.blob += 'x';
    expect(codeOf('INFORM', fits)).to.equal('CONTENT_TOO_LARGE');
  });

  it('measures content size in UTF-8 bytes, not characters', () => {
    const content = { type: 'RESULT', result: { answer: 'a', meta: { blob: 'ż'.repeat(33_000) } } };
    expect(codeOf('INFORM', content)).to.equal('CONTENT_TOO_LARGE');
  });

  it('refuses content that breaks its schema with SCHEMA_VIOLATION and /content paths', () => {
    const content = { type: 'ASK_EXPERT', args: {}, context_ref: { session_id: 'sess-abc123' } };
    const result = failure(validateEnvelope(seedEnvelope('REQUEST', content)));
    expect(result.code).to.equal('SCHEMA_VIOLATION');
    expect(result.errors[0]).to.deep.equal({ instancePath: '/content/args', keyword: 'required',
      message: "must have required property 'question'" });
    expect(result.envelope?.reply_with).to.equal('msg-uuid');
  });

  it('refuses a FAILURE reason outside the seed §4 dictionary', () => {
    expect(codeOf('FAILURE', { reason: 'OOPS' })).to.equal('SCHEMA_VIOLATION');
  });

  it('reports at most 10 compact errors', () => {
    const content = { type: 'STORE_FACT', fact: { session_id: ' ', slot: '', value: null, confidence: 7, ts: 'x', a: 1, b: 2, c: 3, d: 4, e: 5 } };
    const result = failure(validateEnvelope(seedEnvelope('INFORM', content)));
    expect(result.errors).to.have.length(10); // more than 10 problems, truncated
    for (const e of result.errors) expect(Object.keys(e)).to.have.members(['instancePath', 'keyword', 'message']);
  });

  it('refuses an unknown content type with UNSUPPORTED_CONTENT', () => {
    expect(codeOf('REQUEST', { type: 'DANCE' })).to.equal('UNSUPPORTED_CONTENT');
    expect(codeOf('INFORM', { mood: 'good' })).to.equal('UNSUPPORTED_CONTENT');
  });

  it('refuses a content type in the wrong performative with PERFORMATIVE_MISMATCH', () => {
    expect(codeOf('INFORM', { type: 'USER_MSG', text: 'hi' })).to.equal('PERFORMATIVE_MISMATCH');
    expect(codeOf('REQUEST', { candidates: [] })).to.equal('PERFORMATIVE_MISMATCH');
  });

  it('refuses a content type that is not a string with SCHEMA_VIOLATION', () => {
    expect(codeOf('REQUEST', { type: 7 })).to.equal('SCHEMA_VIOLATION');
  });
});

describe('contracts [types] generated types', () => {
  it('shared/contracts/types.gen.ts is current with contracts/', async () => {
    const result = await checkTypes();
    expect(result.current, result.message).to.equal(true);
  });
});
