import { expect } from 'chai';
import {
  ERRORS, MAX_CONTENT_BYTES, OACOP_ERRORS, SESSION_ERRORS, ParleyError, agoraCodeFor, codesFor, contentByteSize, defaultProtocol, errorContent,
  isPerformative, isReplyPerformative, isReplyTo, makeEnvelope, mayAnswerWithError, newConversationId,
  newId, nowIso, performativeFor, replyTo, toParleyError, uuidV7,
} from '../../shared/acl/index.js';
import { contracts, validateEnvelope } from '../../shared/contracts/index.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

function request() {
  return makeEnvelope({
    performative: 'REQUEST', sender: 'Coordinator', receiver: 'Specialist',
    conversation_id: newConversationId(),
    content: { type: 'ASK_EXPERT', args: { question: '2+2?' }, context_ref: { session_id: 'sess-abc123' } },
  });
}

describe('envelope [ids] ids and time', () => {
  it('makes msg-<uuid> ids and sess-<uuid> conversation ids, each unique', () => {
    expect(newId()).to.match(new RegExp(`^msg-${UUID}$`));
    expect(newConversationId()).to.match(new RegExp(`^sess-${UUID}$`));
    expect(newId()).not.to.equal(newId());
  });

  it('makes reply_with and conversation ids UUIDv7 (RFC 9562 §5.7): the time first, so they sort in the order they were made', () => {
    const at = Date.UTC(2026, 10, 27, 10, 0, 0, 123);
    const id = uuidV7(at);
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).to.equal(at);
    expect(newId().slice(4, 18) <= newId().slice(4, 18), 'a later id never sorts before').to.equal(true);
    // conversation ids too (the KB's facts_session index, docs/bench.md "stop 35")
    expect(newConversationId()).to.match(/^sess-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newConversationId().slice(5, 19) <= newConversationId().slice(5, 19)).to.equal(true);
    const ids = Array.from({ length: 5000 }, (_, i) => uuidV7(at + Math.floor(i / 100)));
    expect(new Set(ids).size, '74 random bits: no two alike').to.equal(ids.length);
    expect([...ids].sort().map((x) => x.slice(0, 13))).to.deep.equal(ids.map((x) => x.slice(0, 13)));
  });

  it('stamps time as UTC ISO-8601 ending in Z', () => {
    expect(nowIso(new Date(Date.UTC(2025, 10, 7, 19, 55)))).to.equal('2025-11-07T19:55:00.000Z');
    expect(nowIso()).to.match(/Z$/);
  });
});

describe('envelope [make] makeEnvelope', () => {
  it('fills reply_with, timestamp, ontology, language and protocol and validates', () => {
    const env = request();
    expect(env).to.include({ ontology: 'MAS.Core', language: 'application/json', protocol: 'fipa-request' });
    expect(env.reply_with).to.match(/^msg-/);
    expect(env).not.to.have.property('in_reply_to');
    expect(validateEnvelope(env)).to.include({ ok: true });
  });

  it('picks the protocol from the performative unless given', () => {
    expect(defaultProtocol('QUERY-REF')).to.equal('fipa-query');
    expect(defaultProtocol('CFP')).to.equal('fipa-contract-net');
    expect(defaultProtocol('ACCEPT-PROPOSAL')).to.equal('fipa-contract-net');
    expect(defaultProtocol('INFORM')).to.equal('fipa-request');
    const env = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry',
      conversation_id: 'sess-1', content: { need: 'ASK_EXPERT' } });
    expect(env.protocol).to.equal('fipa-query');
    expect(makeEnvelope({ ...env, protocol: 'fipa-request' }).protocol).to.equal('fipa-request');
  });
});

describe('envelope [reply] replyTo correlation (seed §1)', () => {
  it('swaps sender and receiver, keeps conversation and protocol, sets in_reply_to = reply_with', () => {
    const req = request();
    const agree = replyTo(req, { performative: 'AGREE', content: { status: 'accepted' } });
    expect(agree).to.include({ sender: 'Specialist', receiver: 'Coordinator', conversation_id: req.conversation_id,
      protocol: req.protocol, in_reply_to: req.reply_with, performative: 'AGREE' });
    expect(agree.reply_with).not.to.equal(req.reply_with);
    expect(isReplyTo(agree, req)).to.equal(true);
    expect(validateEnvelope(agree)).to.include({ ok: true });
  });

  it('keeps a query conversation in fipa-query and lets the sender be named', () => {
    const query = makeEnvelope({ performative: 'QUERY-REF', sender: 'Coordinator', receiver: 'Registry',
      conversation_id: 'sess-1', content: { need: 'ASK_EXPERT' } });
    const answer = replyTo(query, { performative: 'INFORM', sender: 'DF', content: { candidates: [] } });
    expect(answer).to.include({ protocol: 'fipa-query', sender: 'DF', receiver: 'Coordinator' });
  });

  it('does not count a message from another conversation as a reply', () => {
    const req = request();
    const reply = replyTo(req, { performative: 'INFORM', content: { type: 'RESULT', result: { answer: '4' } } });
    expect(isReplyTo({ ...reply, conversation_id: 'sess-other' }, req)).to.equal(false);
    expect(isReplyTo(reply, request())).to.equal(false);
  });
});

describe('envelope [size] content byte size', () => {
  it('counts UTF-8 bytes of the JSON', () => {
    expect(contentByteSize({})).to.equal(2);
    expect(contentByteSize({ t: 'ż' })).to.equal(10);
    expect(MAX_CONTENT_BYTES).to.equal(65536);
  });
});

describe('envelope [performatives] helpers', () => {
  it('knows the FIPA performatives and which are replies', () => {
    expect(isPerformative('CFP')).to.equal(true);
    expect(isPerformative('SHOUT')).to.equal(false);
    expect(isReplyPerformative('AGREE')).to.equal(true);
    expect(isReplyPerformative('REQUEST')).to.equal(false);
  });

  it('never answers NOT-UNDERSTOOD or FAILURE with an error (no ping-pong)', () => {
    expect(mayAnswerWithError('NOT-UNDERSTOOD')).to.equal(false);
    expect(mayAnswerWithError('FAILURE')).to.equal(false);
    expect(mayAnswerWithError('REQUEST')).to.equal(true);
    expect(mayAnswerWithError(undefined)).to.equal(true);
  });
});

describe('envelope [errors] catalogue', () => {
  it('maps codes to performatives and Agora codes', () => {
    expect(performativeFor('SCHEMA_VIOLATION')).to.equal('NOT-UNDERSTOOD');
    expect(performativeFor('FORBIDDEN_SENDER')).to.equal('REFUSE');
    expect(performativeFor('NO_CANDIDATE')).to.equal('FAILURE');
    expect(agoraCodeFor('SPECIALIST_TIMEOUT')).to.equal(408);
    for (const spec of Object.values(ERRORS)) expect(spec.description.length).to.be.greaterThan(0);
  });

  it('builds {reason, detail, errors?} content, with the catalogue text as default detail', () => {
    expect(errorContent('BUSY')).to.deep.equal({ reason: 'BUSY', detail: ERRORS.BUSY.description });
    const errors = [{ instancePath: '/x', keyword: 'type', message: 'must be string' }];
    expect(errorContent('SCHEMA_VIOLATION', 'bad', errors)).to.deep.equal({ reason: 'SCHEMA_VIOLATION', detail: 'bad', errors });
  });

  it('carries code, detail and cause on ParleyError and wraps unknown throws as INTERNAL_ERROR', () => {
    const cause = new Error('disk full');
    const err = new ParleyError('KB_STORE_FAILED', 'sqlite said no', { cause });
    expect(err).to.be.instanceOf(Error);
    expect(err).to.include({ code: 'KB_STORE_FAILED', detail: 'sqlite said no', cause, performative: 'FAILURE' });
    expect(err.toContent()).to.deep.equal({ reason: 'KB_STORE_FAILED', detail: 'sqlite said no' });
    expect(toParleyError(err)).to.equal(err);
    expect(toParleyError(cause)).to.include({ code: 'INTERNAL_ERROR', detail: 'disk full', cause });
  });
});

function errorEnvelope(performative: 'NOT-UNDERSTOOD' | 'REFUSE' | 'FAILURE', content: object) {
  return replyTo(request(), { performative, content });
}

describe('errors [contracts] catalogue and schemas agree', () => {
  const enumOf = (name: string): unknown => {
    const schema = contracts().ajv.getSchema(`https://parley.local/contracts/${name}.json`)?.schema as
      { properties: { reason: { enum: string[] } } };
    return schema.properties.reason.enum;
  };

  it('FAILURE reasons equal the FAILURE rows of the catalogue', () => {
    expect(enumOf('failure')).to.have.members(codesFor('FAILURE'));
  });

  it('OACoPError codes and SESSION_ERROR reasons equal their rows of the catalogue, each with a description', () => {
    const oacop = (contracts().ajv.getSchema('https://parley.local/contracts/oacop-error.json')?.schema as { properties: { code: { enum: string[] } } }).properties.code.enum;
    expect(oacop).to.have.members(Object.keys(OACOP_ERRORS));
    expect(enumOf('session-error')).to.have.members(Object.keys(SESSION_ERRORS));
    for (const spec of [...Object.values(OACOP_ERRORS), ...Object.values(SESSION_ERRORS)]) expect(spec.description.length).to.be.greaterThan(10);
  });

  it('NOT-UNDERSTOOD reasons equal the NOT-UNDERSTOOD rows of the catalogue', () => {
    expect(enumOf('not-understood')).to.have.members(codesFor('NOT-UNDERSTOOD'));
  });

  it('every REFUSE row of the catalogue is named in contracts/refuse.json and validates as REFUSE content', () => {
    const description = (contracts().ajv.getSchema('https://parley.local/contracts/refuse.json')?.schema as { description: string }).description;
    for (const code of codesFor('REFUSE').filter((c) => c !== 'BUSY' && c !== 'OUT_OF_SCOPE' && c !== 'FORBIDDEN_SENDER' && c !== 'SENDER_MISMATCH')) {
      expect(description, code).to.contain(code);
    }
    for (const code of codesFor('REFUSE')) expect(validateEnvelope(errorEnvelope('REFUSE', errorContent(code))), code).to.include({ ok: true });
  });

  it('signature failures map to Agora 401 (REFUSE) and 400 (NOT-UNDERSTOOD, malformed)', () => {
    for (const code of ['MISSING_SIGNATURE', 'BAD_SIGNATURE', 'UNKNOWN_DID', 'DID_MISMATCH', 'STALE_MESSAGE', 'REPLAYED'] as const) {
      expect([ERRORS[code].performative, agoraCodeFor(code)], code).to.deep.equal(['REFUSE', 401]);
    }
    expect([ERRORS.MALFORMED_SIGNATURE.performative, agoraCodeFor('MALFORMED_SIGNATURE')]).to.deep.equal(['NOT-UNDERSTOOD', 400]);
  });

  it('errorContent output validates as error, REFUSE and NOT-UNDERSTOOD content', () => {
    const errors = [{ instancePath: '/content', keyword: 'required', message: 'x' }];
    const nu = errorContent('SCHEMA_VIOLATION', 'bad', errors);
    expect(validateEnvelope(errorEnvelope('NOT-UNDERSTOOD', nu))).to.include({ ok: true });
    expect(validateEnvelope(errorEnvelope('REFUSE', errorContent('BUSY')))).to.include({ ok: true });
    expect(validateEnvelope(errorEnvelope('FAILURE', errorContent('NO_CANDIDATE')))).to.include({ ok: true });
    expect(contracts().validator('error-content')(errorContent('INTERNAL_ERROR', 'x'.repeat(5000)))).to.equal(true);
  });
});
