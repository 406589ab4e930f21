import { expect } from 'chai';
import type { AgentProfile } from '../../shared/contracts/index.js';
import { helpMachine } from '../../agents/coordinator/help.js';
import { classifyIntent } from '../../agents/coordinator/intent.js';
import { harness, T, userMsg } from './coordinator-harness.js';

const math: AgentProfile = { jid: 'specialist-math@localhost', name: 'math', version: '1', capabilities: ['arithmetic'], description: 'arithmetic and unit conversion', examples: ['what is 17 * 23?', 'what is 2.5 km in miles?'] };
const time: AgentProfile = { jid: 'specialist-time@localhost', name: 'time', version: '1', capabilities: ['time'], examples: ['what time is it in Tokyo?'] };
const coordinator: AgentProfile = { jid: 'coordinator@localhost', name: 'Coordinator', version: '1', capabilities: ['SESSIONS'], description: 'Coordinator: OAP RFC 0001 Coordination Sessions' };
const cal = (p: string): AgentProfile => ({ jid: `calendar-${p}@localhost`, name: `calendar-${p}`, version: '1', capabilities: ['CALENDAR'] });
const room = (n: string, capacity: number): AgentProfile => ({ jid: `${n}@rooms.localhost`, name: `room-${n}`, version: '1', capabilities: ['ROOM'], room: { capacity } });
const directory = (profiles: AgentProfile[]) => ({ type: 'DIRECTORY', agents: profiles.map((profile) => ({ profile, registered_at: '2026-12-09T09:00:00Z', last_seen: '2026-12-09T09:59:00Z' })) });

function ask(profiles: AgentProfile[] | 'silent') {
  const h = harness(helpMachine, userMsg('help'));
  const q = h.sent[0];
  expect(q).to.deep.include({ performative: 'QUERY-REF', receiver: 'Registry' });
  expect(q?.content).to.deep.equal({ type: 'DESCRIBE' });
  if (profiles === 'silent') h.clock.increment(T.registryTimeoutMs);
  else h.reply(q as never, 'INFORM', directory(profiles));
  expect(h.isDone()).to.equal(true);
  return h.last().content as { text: string; rich: { commands: string[]; directory: string } };
}

describe('Coordinator [help] what the system can do now, from the live directory', () => {
  it('lists each online specialist with its examples, then the commands', () => {
    const { text, rich } = ask([math, time, coordinator]);
    expect(text).to.not.contain('Coordinator');
    expect(text).to.contain('these specialists are online:\n• math — arithmetic and unit conversion\n  e.g. "what is 17 * 23?", "what is 2.5 km in miles?"\n• time\n  e.g. "what time is it in Tokyo?"');
    expect(text).to.not.contain('schedule 30 min');
    expect(text).to.contain('• my time zone is Europe/Berlin');
    expect(rich.commands).to.not.include('cancel that meeting');
  });

  it('with calendars online: the meeting commands, people counted and rooms named, not one line per calendar', () => {
    const { text, rich } = ask([math, cal('alice'), cal('bob'), room('atlas', 3), room('dune', 2)]);
    expect(text).to.contain('Meetings and tasks (2 people have a calendar; rooms: atlas (3), dune (2)):');
    expect(text).to.contain('• cancel that meeting — ');
    expect(text).to.not.contain('calendar-alice');
    expect(rich.commands).to.include('cancel that meeting').and.include('move that meeting to 3pm');
  });

  it('no specialist online, or the Registry silent: says so, and still lists the built-ins', () => {
    expect(ask([cal('alice')]).text).to.match(/^No specialists are online right now/);
    const silent = ask('silent');
    expect(silent.text).to.match(/^I could not reach the directory just now/).and.contain('• help — show this list');
    expect(silent.rich.directory).to.equal('unavailable');
  });

  it('"which rooms are there?" lists each room with its seats, smallest first, and how to book one; none or a silent Registry says so', () => {
    for (const line of ['which rooms are there?', 'rooms', 'list rooms', 'show me the meeting rooms', 'What rooms do you have?', 'which rooms can I book?']) {
      expect(classifyIntent(line), line).to.deep.equal({ kind: 'help', topic: 'rooms' });
    }
    for (const line of ['book a room for 4 for 1 hour tomorrow', 'how many rooms are there in a house?']) expect(classifyIntent(line).kind, line).to.not.equal('help');
    // "who is online?" is the help's list of the specialists online.
    for (const line of ['who is online?', "who's available", 'which specialists are online?', 'list agents']) expect(classifyIntent(line), line).to.deep.equal({ kind: 'help' });
    expect(classifyIntent('who is online in Tokyo at 3?').kind).to.equal('ask');
    const rooms = (profiles: AgentProfile[] | 'silent') => {
      const h = harness(helpMachine, userMsg('which rooms are there?'), { topic: 'rooms' });
      if (profiles === 'silent') h.clock.increment(T.registryTimeoutMs);
      else h.reply(h.sent[0] as never, 'INFORM', directory(profiles));
      expect(h.isDone()).to.equal(true);
      return h.last().content as { text: string; rich: { kind: string; rooms: unknown } };
    };
    const r = rooms([math, cal('alice'), room('cosmos', 12), room('atlas', 3), room('dune', 1)]);
    expect(r.text).to.equal('The rooms: dune (1 seat), atlas (3 seats), cosmos (12 seats).\nBook one with e.g. "book a room for 4 for 1 hour tomorrow at 10" or "schedule 30 min with bob tomorrow in dune".');
    expect(r.rich).to.deep.include({ kind: 'rooms', rooms: [{ name: 'dune', capacity: 1 }, { name: 'atlas', capacity: 3 }, { name: 'cosmos', capacity: 12 }] });
    expect(rooms([math]).text).to.equal('There are no rooms here to book.');
    expect(rooms('silent').text).to.match(/^I could not reach the directory just now, so I cannot list the rooms/);
  });
});
