// docs/runtime.md "Adding a message kind", followed step by step with a throwaway kind
// (RECIPE_PING: a specialist asks the Coordinator). Each `describe` is one step of the recipe; if
// this test needs something the recipe does not say, the recipe is wrong.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fromPromise, SimulatedClock } from 'xstate';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import {
  type Contracts, contentKinds, contractId, findContractsDir, loadContracts, MESSAGE_KINDS, type MessageKind, opens, row, ROLES, validateEnvelope,
} from '../../shared/contracts/index.js';
import { silentLogger } from '../../shared/log/index.js';
import {
  type Answer, answerOnceMachine, type HandlerInput, identify, classify, type PipelineContext,
  kindPolicies, mayInitiate, mayReply, Router,
} from '../../shared/runtime/index.js';
import { generateTypes } from '../../scripts/gen-types.js';
import { DOMAIN, inbound } from '../support/fake-transport.js';
import { until } from '../support/wait.js';

const KIND = 'RECIPE_PING';
const NAME = 'recipe-ping';
const CID = 'sess-recipe-1';

// Step 1: contracts/<name>.json, $id = https://parley.local/contracts/<name>.json.
const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: `https://parley.local/contracts/${NAME}.json`,
  title: 'RecipePingContent',
  description: 'REQUEST.RECIPE_PING, Specialist → Coordinator: the throwaway kind of the recipe test.',
  type: 'object',
  required: ['type', 'text'],
  additionalProperties: false,
  properties: {
    type: { const: KIND },
    text: { type: 'string', maxLength: 100 },
  },
};

// Step 2: one row, built as MESSAGE_KINDS builds its rows.
const ROW: MessageKind = row(KIND, NAME, ['REQUEST'], opens(['specialist'], []));
const KINDS: readonly MessageKind[] = [...MESSAGE_KINDS, ROW];

const JIDS = {
  specialist: `specialist-math@${DOMAIN}`,
  calendar: `calendar-bob@${DOMAIN}`,
  presenter: `presenter@${DOMAIN}`,
  person: `alice@${DOMAIN}`,
} as const;

const ping = (sender: string, over: Partial<Envelope> = {}): Envelope => makeEnvelope({
  performative: 'REQUEST', sender, receiver: 'Coordinator', conversation_id: CID, content: { type: KIND, text: 'ping' }, ...over,
});

describe('recipe [adding a message kind] (docs/runtime.md), followed literally', () => {
  let dir: string;
  let registry: Contracts;
  let ctx: PipelineContext;

  before(() => {
    // A copy of contracts/ with the new file in it: the recipe's step 1 without touching the repo.
    dir = mkdtempSync(join(tmpdir(), 'parley-recipe-'));
    const real = findContractsDir();
    for (const f of readdirSync(real).filter((x) => x.endsWith('.json'))) copyFileSync(join(real, f), join(dir, f));
    writeFileSync(join(dir, `${NAME}.json`), JSON.stringify(SCHEMA, null, 2));
    registry = loadContracts(dir);
    ctx = {
      domain: DOMAIN, self: identify(`coordinator@${DOMAIN}`, DOMAIN), readsChat: false,
      kinds: { contracts: registry, content: contentKinds(KINDS), policies: kindPolicies(KINDS) },
    };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('step 1: the contract, loaded under its $id', () => {
    it('is loaded by the same loader as every contract', () => {
      expect(registry.has(NAME)).to.equal(true);
      expect(registry.has(contractId(NAME))).to.equal(true);
    });

    it('is refused at load when its $id does not match its file name', () => {
      writeFileSync(join(dir, 'recipe-wrong.json'), JSON.stringify({ ...SCHEMA, $id: contractId('recipe-other') }));
      try {
        expect(() => loadContracts(dir)).to.throw(/does not match its file name/);
      } finally {
        rmSync(join(dir, 'recipe-wrong.json'));
      }
    });
  });

  describe('step 2: the one declaration row', () => {
    it('makes an envelope of the kind validate, content included', () => {
      const r = validateEnvelope(ping('specialist-math'), registry, contentKinds(KINDS));
      expect(r.ok && r.kind).to.equal(ROW);
    });

    it('validates the content against the new contract', () => {
      const r = validateEnvelope(ping('specialist-math', { content: { type: KIND, text: 'x'.repeat(101) } }), registry, contentKinds(KINDS));
      expect(r).to.include({ ok: false, code: 'SCHEMA_VIOLATION' });
    });

    it('lets it travel only in its declared performatives', () => {
      const r = validateEnvelope(ping('specialist-math', { performative: 'INFORM' }), registry, contentKinds(KINDS));
      expect(r).to.include({ ok: false, code: 'PERFORMATIVE_MISMATCH' });
    });

    it('gives the policy: exactly the roles in initiate may open it, nobody may answer with it', () => {
      const policies = kindPolicies(KINDS);
      expect(ROLES.filter((r) => mayInitiate(r, KIND, policies))).to.deep.equal(['specialist']);
      expect(ROLES.filter((r) => mayReply(r, KIND, policies))).to.deep.equal([]);
    });

    it('lets a role that may open it through the pipeline', () => {
      const r = classify(inbound(JIDS.specialist, ping('specialist-math')), ctx);
      expect(r.action).to.equal('deliver');
      expect(r.action === 'deliver' && r.kind).to.equal(ROW);
    });

    for (const [role, name, detail] of [
      ['calendar', 'calendar-bob', `a calendar may not open a ${KIND} exchange (docs/acl_contract.md "Role policy")`],
      ['presenter', 'Presenter', `a presenter may not open a ${KIND} exchange (docs/acl_contract.md "Role policy")`],
    ] as const) {
      it(`refuses a ${role} FORBIDDEN_SENDER: "${detail}"`, () => {
        const r = classify(inbound(JIDS[role], ping(name)), ctx);
        expect(r).to.include({ action: 'reject', code: 'FORBIDDEN_SENDER', detail });
      });
    }

    it('refuses a person FORBIDDEN_SENDER (no edge to the Coordinator)', () => {
      const r = classify(inbound(JIDS.person, ping('alice')), ctx);
      expect(r).to.include({ action: 'reject', code: 'FORBIDDEN_SENDER' });
      expect(r.action === 'reject' && r.detail).to.match(/^person alice@localhost may not send to the coordinator/);
    });

    it('fails closed without the row: UNSUPPORTED_CONTENT at validation, and no role may send it', () => {
      // The schema alone is not a declaration: the real table does not have the kind.
      const r = classify(inbound(JIDS.specialist, ping('specialist-math')), { ...ctx, kinds: { contracts: registry, content: contentKinds(MESSAGE_KINDS), policies: kindPolicies(MESSAGE_KINDS) } });
      expect(r).to.include({ action: 'reject', code: 'UNSUPPORTED_CONTENT', detail: `unknown content type "${KIND}"` });
      expect(ROLES.filter((role) => mayInitiate(role, KIND) || mayReply(role, KIND))).to.deep.equal([]);
      // And every agent, which passes no table, judges by the declared one.
      const production: PipelineContext = { domain: DOMAIN, self: ctx.self, readsChat: false };
      expect(classify(inbound(JIDS.specialist, ping('specialist-math')), production)).to.include({ action: 'reject', code: 'UNSUPPORTED_CONTENT' });
    });

    it('fails closed for a kind nobody declared, with or without a schema', () => {
      const r = classify(inbound(JIDS.specialist, ping('specialist-math', { content: { type: 'RECIPE_NOBODY' } })), ctx);
      expect(r).to.include({ action: 'reject', code: 'UNSUPPORTED_CONTENT', detail: 'unknown content type "RECIPE_NOBODY"' });
      const policies = kindPolicies(KINDS);
      expect(ROLES.filter((role) => mayInitiate(role, 'RECIPE_NOBODY', policies) || mayReply(role, 'RECIPE_NOBODY', policies))).to.deep.equal([]);
    });
  });

  describe('step 3: the generated types', () => {
    it('gen:types gives the contract its type', async function () {
      this.timeout(30000);
      const text = await generateTypes(dir);
      expect(text).to.contain('export interface RecipePingContent {').and.contain(`"${NAME}": RecipePingContent;`);
    });
  });

  describe("step 4: the handler on the receiving role's router", () => {
    it('opens one exchange per RECIPE_PING, whose handler answers it once', async () => {
      const sent: Envelope[] = [];
      const handled: HandlerInput[] = [];
      const router = new Router({ logger: silentLogger(), clock: new SimulatedClock(), send: (e) => sent.push(e), note: () => undefined, crashed: () => undefined });
      const machine = answerOnceMachine.provide({
        actors: { handle: fromPromise<Answer | null, HandlerInput>(async ({ input }) => (handled.push(input), { performative: 'AGREE', content: { status: 'accepted' } })) },
      });
      router.on(KIND, (request, from) => ({ machine, input: { request, from, self: 'Coordinator', kind: KIND } }));
      const r = classify(inbound(JIDS.specialist, ping('specialist-math')), ctx);
      if (r.action !== 'deliver') throw new Error(`not delivered: ${JSON.stringify(r)}`);
      expect(router.deliver(r.envelope, r.kind.kind, r.from)).to.deep.equal({ outcome: 'opened', key: `${CID}/${r.envelope.reply_with}` });
      await until(() => sent.length > 0, 'the handler to answer', 2000);
      expect(handled.map((h) => [h.kind, h.from.jid])).to.deep.equal([[KIND, JIDS.specialist]]);
      expect(sent.map((e) => [e.performative, e.in_reply_to, e.receiver])).to.deep.equal([['AGREE', r.envelope.reply_with, 'specialist-math']]);
      expect(validateEnvelope(JSON.parse(JSON.stringify(sent[0])), registry, contentKinds(KINDS)).ok).to.equal(true);
    });
  });
});
