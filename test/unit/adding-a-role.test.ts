// docs/runtime.md "Adding a role", step by step, for every core role (the sessions agent was added
// this way): listed once in shared/contracts/roles.ts, it is named by names.ts, provisioned (account,
// key, pinned DID), reserved from people, in ejabberd's `agents` ACL, started by the supervisor's
// spec from dist/agents/<role>/main.js and ready when it tells `online`; and it is refused every
// kind its rows in message-kinds.ts do not give it, by the real pipeline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type Envelope, makeEnvelope } from '../../shared/acl/index.js';
import { loadConfig } from '../../shared/config/index.js';
import { CORE_AGENTS as CORE_LOGICAL, CORE_ROLES, MESSAGE_KINDS, ROLES } from '../../shared/contracts/index.js';
import { CORE_AGENTS, isAgentName, provisionCore, api } from '../../shared/ejabberd/index.js';
import { renderConfig } from '../../shared/ejabberd/operator.js';
import { isSigningAgent } from '../../shared/identity/agent-identity.js';
import { loadIdentity, pinnedDids } from '../../shared/identity/index.js';
import { identify, jidOfName, mayInitiate, mayReply, mayTalk } from '../../shared/runtime/index.js';
import { repoRoot } from '../../shared/runtime/repo-root.js';
import { coreSpec } from '../../shared/supervisor/index.js';
import { inbound, testAgent } from '../support/fake-transport.js';

const D = 'localhost';

describe('Adding a role [recipe] every core role is wired by its one line in roles.ts', () => {
  let home: string;
  before(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-role-'));
  });
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lists sessions among the roles and the core agents, with its logical name', () => {
    expect(ROLES).to.include('sessions');
    expect(CORE_ROLES).to.include('sessions');
    expect(CORE_LOGICAL.sessions).to.equal('Sessions');
  });

  for (const role of CORE_ROLES) {
    it(`${role}: named by names.ts, reserved from people, an agent that signs`, () => {
      const id = identify(`${role}@${D}/parley`, D);
      expect(id).to.deep.include({ jid: `${role}@${D}`, name: CORE_LOGICAL[role], role });
      expect(jidOfName(CORE_LOGICAL[role], D)).to.equal(`${role}@${D}`);
      expect(CORE_AGENTS).to.include(role);
      expect(isSigningAgent(role), 'has a key').to.equal(true);
      expect(isAgentName(role), '`npm run user -- add` refuses the name').to.equal(true);
    });

    it(`${role}: started by the supervisor's spec from its main.js, ready when online`, () => {
      const spec = coreSpec({ agentsDir: path.join(repoRoot(), 'dist', 'agents') }, role);
      expect(spec).to.include({ name: role, kind: 'core', readyOn: 'online' });
      const main = spec.args[0] as string;
      expect(main).to.equal(path.join(repoRoot(), 'dist', 'agents', role, 'main.js'));
      const code = fs.readFileSync(main, 'utf8');
      expect(code, 'tells the supervisor its ready moment (typed IPC)').to.match(/announce\(logger, \{[^;]*\}, 'online'\);/);
      expect(code, 'its account is the role').to.match(new RegExp(`createAgent\\(\\{\\s*account: '${role}'`));
    });
  }

  it('provisions every core account with its key and pins its DID (provisionCore, ejabberd API stubbed)', async () => {
    const cfg = loadConfig({ ...process.env, PARLEY_HOME: home });
    const registered: string[] = [];
    const saved = { register: api.register, changePassword: api.changePassword };
    api.register = async (_cfg, user) => {
      registered.push(user);
      return 'ok';
    };
    try {
      await provisionCore(cfg);
    } finally {
      Object.assign(api, saved);
    }
    expect(registered).to.have.members(['admin', ...CORE_ROLES]);
    const pins = pinnedDids(home);
    for (const role of CORE_ROLES) {
      const did = loadIdentity(home, role)?.did;
      expect(did, `${role}'s key`).to.match(/^did:key:z6Mk/);
      expect(pins.get(`${role}@${cfg.domain}`), `${role}'s pin`).to.equal(did);
    }
  });

  it('puts every core account in ejabberd\'s `agents` ACL (no shaper, not on the exposed listeners)', () => {
    const cfg = loadConfig({ ...process.env, PARLEY_HOME: home });
    const yml = fs.readFileSync(renderConfig(cfg, 'secret', {}), 'utf8');
    const line = /user_regexp:\n\s+- "\^\(admin\|([a-z|]+)\)\$"/.exec(yml);
    expect(line?.[1]?.split('|')).to.have.members([...CORE_ROLES]);
  });
});

describe('Adding a role [policy] a role is refused every kind it did not declare', () => {
  it('the declarations give sessions only its own answers, the DF kinds, and no edge to the Presenter or the KB', () => {
    const initiates = MESSAGE_KINDS.filter((k) => mayInitiate('sessions', k.kind)).map((k) => k.kind);
    expect(initiates).to.have.members(['REGISTER', 'DEREGISTER', 'HEARTBEAT']);
    for (const k of ['SESSION_RECEIPT', 'SESSION_INFO', 'SESSION_TURNS', 'SESSION_ERROR', 'SESSION_CHAT_REPLY']) expect(mayReply('sessions', k), k).to.equal(true);
    for (const k of ['PRESENTER_REPLY', 'FACTS', 'CANDIDATES', 'RESULT_X']) expect(mayReply('sessions', k), k).to.equal(false);
    expect(mayTalk('sessions', 'presenter')).to.equal(false);
    expect(mayTalk('sessions', 'kb')).to.equal(false);
  });

  const open = (receiver: string, content: Record<string, unknown>, performative: Envelope['performative'] = 'REQUEST') =>
    makeEnvelope({ performative, sender: 'Sessions', receiver, conversation_id: 'conv-role-1', content });
  const attacks: Array<[string, string, Envelope]> = [
    ['a USER_MSG to the Coordinator (an edge it has, a kind it lacks)', 'coordinator', open('Coordinator', { type: 'USER_MSG', text: 'hi', attachments: [], user: `alice@${D}` })],
    ['an ASK_EXPERT to a specialist', 'specialist-math', open('specialist-math', { type: 'ASK_EXPERT', args: { question: '2+2?' }, context_ref: { session_id: 'conv-role-1' } })],
    ['a PRESENTER_REPLY-shaped INFORM to the Presenter (no edge)', 'presenter', open('Presenter', { type: 'PRESENTER_REPLY', text: 'hello' }, 'INFORM')],
  ];
  for (const [what, to, env] of attacks) {
    it(`refuses, from sessions@, ${what}: REFUSE FORBIDDEN_SENDER`, () => {
      const { agent, transport } = testAgent(to);
      agent.receive(inbound(`sessions@${D}`, env));
      const reply = transport.envelopes()[0] as Envelope;
      expect(reply?.performative).to.equal('REFUSE');
      expect(reply?.content).to.include({ reason: 'FORBIDDEN_SENDER' });
      expect(String(reply?.content.detail)).to.not.equal('');
      expect(reply?.in_reply_to).to.equal(env.reply_with);
    });
  }
});
