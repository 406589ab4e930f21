import { expect } from 'chai';
import {
  addressOf, identify, jidOfName, ReplyAddresses, nameOfJid, type Role, allowedSenders, KIND_POLICY, kindsWithoutPolicy,
  mayInitiate, mayReply, mayTalk, needsAssignment,
} from '../../shared/runtime/index.js';
import { CONTENT_KINDS, MESSAGE_KINDS, ROLES } from '../../shared/contracts/index.js';
import { withRoleBook } from '../support/signing.js';

const D = 'localhost';

describe('names [identify] logical names from authenticated JIDs', () => {
  const cases: Array<[string, string, Role]> = [
    ['presenter@localhost/agent-1', 'Presenter', 'presenter'],
    ['coordinator@localhost', 'Coordinator', 'coordinator'],
    ['registry@localhost/x', 'Registry', 'registry'],
    ['kb@localhost', 'KB', 'kb'],
    ['sessions@localhost/parley', 'Sessions', 'sessions'],
    ['admin@localhost', 'admin', 'admin'],
    ['specialist-math@localhost/agent-7', 'specialist-math', 'specialist'],
    ['calendar-bob@localhost', 'calendar-bob', 'calendar'],
    ['alice@localhost/phone', 'alice', 'person'],
    ['lobby@rooms.localhost/agent', 'room-lobby', 'room'],
    ['coordinator@evil.example', 'coordinator@evil.example', 'foreign'],
    ['localhost', 'localhost', 'foreign'],
  ];
  for (const [jid, name, role] of cases) {
    it(`names ${jid} ${name} (${role})`, () => {
      const id = identify(jid, D);
      expect(id).to.deep.include({ name, role });
      expect(id.jid).not.to.include('/');
    });
  }

  it('maps every local name back to its bare JID', () => {
    for (const [jid, name, role] of cases) {
      if (role === 'foreign') continue;
      expect(jidOfName(name, D)).to.equal(jid.split('/')[0]);
      expect(nameOfJid(jid, D)).to.equal(name);
    }
  });

  it('passes a name that already is a JID through unchanged', () => {
    expect(jidOfName('bob@elsewhere.org', D)).to.equal('bob@elsewhere.org');
  });
});

describe('policy [edges] seed contract §5 "no shortcuts"', () => {
  it('lets the Coordinator talk to every operational role', () => {
    for (const to of ['presenter', 'registry', 'specialist', 'kb', 'sessions', 'calendar', 'room'] as Role[]) expect(mayTalk('coordinator', to), to).to.equal(true);
  });

  it('keeps the Specialist away from the Presenter and the KB', () => {
    expect(mayTalk('specialist', 'presenter')).to.equal(false);
    expect(mayTalk('specialist', 'kb')).to.equal(false);
    expect(mayTalk('specialist', 'coordinator')).to.equal(true);
    expect(mayTalk('specialist', 'registry')).to.equal(true);
  });

  it('lets only the Coordinator reach the KB, and only the Presenter and Coordinator reach each other', () => {
    expect(allowedSenders('kb')).to.deep.equal(['coordinator']);
    expect(allowedSenders('presenter')).to.deep.equal(['coordinator']);
    expect(allowedSenders('coordinator')).to.have.members(['presenter', 'registry', 'kb', 'sessions', 'specialist', 'calendar', 'room']);
    // The Presenter reaches the sessions agent only through the Coordinator; agents with a DID directly.
    expect(allowedSenders('sessions')).to.have.members(['coordinator', 'registry', 'specialist']);
  });

  it('gives people, admins and foreign JIDs no envelope edges at all (people chat in plain text)', () => {
    for (const from of ['person', 'admin', 'foreign'] as Role[]) {
      for (const to of ['presenter', 'coordinator', 'registry', 'kb', 'sessions', 'specialist'] as Role[]) expect(mayTalk(from, to), `${from}→${to}`).to.equal(false);
    }
  });
});

describe('policy [initiate] who may open which exchange', () => {
  it('lets only the Presenter open USER_MSG and only the Coordinator open ASK_EXPERT and STORE_FACT', () => {
    expect(mayInitiate('presenter', 'USER_MSG')).to.equal(true);
    expect(mayInitiate('specialist', 'USER_MSG')).to.equal(false);
    expect(mayInitiate('coordinator', 'ASK_EXPERT')).to.equal(true);
    expect(mayInitiate('presenter', 'ASK_EXPERT')).to.equal(false);
    expect(mayInitiate('coordinator', 'STORE_FACT')).to.equal(true);
    expect(mayInitiate('specialist', 'STORE_FACT')).to.equal(false);
  });

  it('lets specialists, calendars, rooms and the sessions agent (its sessions manifest) register; not the Presenter, the KB or the Coordinator', () => {
    for (const r of ['specialist', 'calendar', 'room', 'sessions'] as Role[]) expect(mayInitiate(r, 'REGISTER')).to.equal(true);
    for (const r of ['presenter', 'kb', 'coordinator'] as Role[]) expect(mayInitiate(r, 'REGISTER')).to.equal(false);
  });

  it('lets specialists open session requests (the Presenter only through the Coordinator\'s SESSION_CHAT); only the sessions agent answers them', () => {
    expect(mayInitiate('specialist', 'SESSION_UPDATE')).to.equal(true);
    for (const r of ['presenter', 'kb', 'calendar', 'coordinator', 'person'] as Role[]) expect(mayInitiate(r, 'SESSION_CREATE'), r).to.equal(false);
    expect(mayTalk('presenter', 'sessions')).to.equal(false);
    expect(mayInitiate('coordinator', 'SESSION_CHAT')).to.equal(true);
    for (const r of ['specialist', 'presenter', 'person', 'sessions', 'calendar'] as Role[]) expect(mayInitiate(r, 'SESSION_CHAT'), r).to.equal(false);
    for (const k of ['SESSION_RECEIPT', 'SESSION_INFO', 'SESSION_ERROR', 'SESSION_CHAT_REPLY']) {
      expect(mayReply('sessions', k), k).to.equal(true);
      expect(mayReply('coordinator', k), k).to.equal(false);
    }
  });

  it('lets nobody open a kind that only travels as an answer, nor a kind without a policy row (fail closed)', () => {
    expect(mayInitiate('specialist', 'RESULT')).to.equal(false);
    expect(mayReply('specialist', 'RESULT')).to.equal(true);
    expect(mayInitiate('coordinator', 'NO_SUCH_KIND')).to.equal(false);
    expect(mayReply('coordinator', 'NO_SUCH_KIND')).to.equal(false);
  });

  it('declares who may send every content kind of the contracts', () => {
    expect(kindsWithoutPolicy()).to.deep.equal([]);
    for (const k of CONTENT_KINDS) expect(KIND_POLICY[k.kind], k.kind).to.equal(k.policy);
  });

  it('declares every message kind once, and every role it names is a role', () => {
    const names = MESSAGE_KINDS.map((k) => k.kind);
    expect(names.filter((n, i) => names.indexOf(n) !== i), 'declared twice').to.deep.equal([]);
    for (const k of MESSAGE_KINDS) {
      const named = [...k.policy.initiate, ...(k.policy.reply === 'edges' ? [] : k.policy.reply), ...(k.policy.assigned ?? []), ...(k.policy.unenrolled ?? [])];
      for (const r of named) expect(ROLES, `${k.kind} names ${r}`).to.include(r);
    }
  });

  it('keeps directory and KB answers to the Registry and the KB', () => {
    expect(mayReply('registry', 'CANDIDATES')).to.equal(true);
    expect(mayReply('specialist', 'CANDIDATES')).to.equal(false);
    expect(mayReply('specialist', 'FACTS')).to.equal(false);
  });
});

describe('policy [least authority] delegation and broadcasts (issue "Close the perimeter")', () => {
  it('scopes a specialist\'s DELEGATE_TASK and QUERY_AGENTS to conversations it was assigned', () => {
    for (const k of ['DELEGATE_TASK', 'QUERY_AGENTS']) {
      expect(mayInitiate('specialist', k), k).to.equal(true);
      expect(needsAssignment('specialist', k), k).to.equal(true);
      for (const r of ['calendar', 'room', 'presenter', 'person'] as Role[]) expect(mayInitiate(r, k), `${r} ${k}`).to.equal(false);
    }
  });

  it('lets no agent but the Coordinator open BROADCAST_EVENT or EVENT', () => {
    for (const r of ['specialist', 'calendar', 'room', 'presenter', 'kb', 'registry', 'person'] as Role[]) {
      expect(mayInitiate(r, 'BROADCAST_EVENT'), r).to.equal(false);
      expect(mayInitiate(r, 'EVENT'), r).to.equal(false);
    }
  });
});

describe('names [roles] from enrolment, never from the account name', () => {
  it('makes an account named specialist-* a person unless the RoleBook enrols it', () => {
    const book = { roleOf: (jid: string) => (jid === 'specialist-good@localhost' ? 'specialist' as const : undefined) };
    withRoleBook(book, () => {
      expect(identify('specialist-evil@localhost/x', D).role).to.equal('person');
      expect(identify('calendar-mallory@localhost', D).role).to.equal('person');
      expect(identify('specialist-good@localhost/r', D)).to.deep.include({ name: 'specialist-good', role: 'specialist' });
    });
    withRoleBook(undefined, () => expect(identify('specialist-good@localhost', D).role).to.equal('person'));
  });

  it('makes a JID on agents.<domain> a specialist only when enrolled, named by its bare JID', () => {
    const book = { roleOf: (jid: string) => (jid === 'm-1@agents.localhost' ? 'specialist' as const : jid === 'c-1@agents.localhost' ? 'calendar' as const : undefined) };
    withRoleBook(book, () => {
      expect(identify('m-1@agents.localhost/x', D)).to.deep.include({ jid: 'm-1@agents.localhost', name: 'm-1@agents.localhost', role: 'specialist' });
      expect(jidOfName('m-1@agents.localhost', D)).to.equal('m-1@agents.localhost');
      expect(identify('m-2@agents.localhost', D).role).to.equal('foreign');
      expect(identify('c-1@agents.localhost', D).role).to.equal('foreign');
    });
  });

  it('makes a JID on calendars.<domain> a calendar only when enrolled as one, named by its bare JID', () => {
    const book = { roleOf: (jid: string) => (jid === 'bob@calendars.localhost' ? 'calendar' as const : jid === 'm-1@calendars.localhost' ? 'specialist' as const : undefined) };
    withRoleBook(book, () => {
      expect(identify('bob@calendars.localhost/x', D)).to.deep.include({ jid: 'bob@calendars.localhost', name: 'bob@calendars.localhost', role: 'calendar' });
      expect(jidOfName('bob@calendars.localhost', D)).to.equal('bob@calendars.localhost');
      expect(identify('carol@calendars.localhost', D).role).to.equal('foreign');
      expect(identify('m-1@calendars.localhost', D).role).to.equal('foreign');
    });
  });

  it('never lets a RoleBook make an account a core agent or a room', () => {
    const book = { roleOf: () => 'coordinator' as const };
    withRoleBook(book, () => {
      expect(identify('mallory@localhost', D).role).to.equal('person');
      expect(identify('coordinator@localhost', D).role).to.equal('coordinator');
    });
  });
});

describe('names [addressOf] envelopes to the c2s agents go to their fixed resource', () => {
  it('an account of the domain gets the resource (a restarted agent\'s re-routed requests skip offline storage); others stay as they are', () => {
    expect(addressOf('sessions@localhost', D, 'parley')).to.equal('sessions@localhost/parley');
    expect(addressOf('Coordinator@LocalHost', D, 'parley')).to.equal('Coordinator@LocalHost/parley');
    expect(addressOf('alice@localhost/phone', D, 'parley')).to.equal('alice@localhost/phone');
    expect(addressOf('math@agents.localhost', D, 'parley')).to.equal('math@agents.localhost');
    expect(addressOf('lobby@rooms.localhost', D, 'parley')).to.equal('lobby@rooms.localhost');
    expect(addressOf('bob@evil.example', D, 'parley')).to.equal('bob@evil.example');
    expect(addressOf('sessions@localhost', D, undefined)).to.equal('sessions@localhost');
  });
});

describe('names [ReplyAddresses] an answer goes to the session that asked', () => {
  it('answers the full JID the request came from; a request id of another account never redirects an answer', () => {
    const r = new ReplyAddresses(D, 'parley');
    r.note('msg-1', 'presenter@localhost/test-1');
    r.note('msg-2', 'mallory@localhost/x'); // mallory reuses an id another account chose
    r.note('msg-1', 'mallory@localhost/x'); // and one the Presenter's session chose: its answer still goes there
    expect(r.addressFor('presenter@localhost', 'msg-1')).to.equal('presenter@localhost/test-1');
    expect(r.addressFor('mallory@localhost', 'msg-1')).to.equal('mallory@localhost/x');
    expect(r.addressFor('coordinator@localhost', 'msg-2')).to.equal('coordinator@localhost/parley');
    expect(r.addressFor('coordinator@localhost', undefined)).to.equal('coordinator@localhost/parley');
    expect(r.addressFor('coordinator@localhost', 'unknown')).to.equal('coordinator@localhost/parley');
  });
  it('remembers a bounded number of requests, oldest forgotten first', () => {
    const r = new ReplyAddresses(D, 'parley');
    for (let i = 0; i < 5001; i++) r.note(`m${i}`, `kb@localhost/s${i}`);
    expect(r.addressFor('kb@localhost', 'm0')).to.equal('kb@localhost/parley');
    expect(r.addressFor('kb@localhost', 'm5000')).to.equal('kb@localhost/s5000');
  });
});
