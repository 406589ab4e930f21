import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHOICES_TTL_MS, pickedIndex, ShownChoices } from '../../agents/presenter/shown-choices.js';
import { SqliteThreadOwners } from '../../agents/presenter/thread-owners.js';

const LIST = 'The nearest times that work for everyone:\n1. Mon 30 Nov 2026, 10:00–10:30\n2. …\n3. …';
const CHOICES = [
  { label: 'Mon 30 Nov 2026, 10:00–10:30', say: 'meet 30m bob 2026-11-30T09:00Z..2026-11-30T09:30Z' },
  { label: 'Mon 30 Nov 2026, 10:30–11:00', say: 'meet 30m bob 2026-11-30T09:30Z..2026-11-30T10:00Z' },
  { label: 'Mon 30 Nov 2026, 11:00–11:30', say: 'meet 30m bob 2026-11-30T10:00Z..2026-11-30T10:30Z' },
];

describe('Presenter: a typed number answers the choices last shown (shown-choices.ts)', () => {
  let dir: string;
  let owners: SqliteThreadOwners;
  let now: number;
  let shown: ShownChoices;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-choices-'));
    owners = new SqliteThreadOwners(path.join(dir, 'presenter-threads.sqlite'));
    now = Date.parse('2026-11-28T20:00:00Z');
    shown = new ShownChoices(owners.connection, () => now);
  });
  afterEach(() => {
    owners.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the ways a pick is typed, and nothing else', () => {
    for (const [q, i] of [['1', 0], ['2', 1], ['book 2', 1], ['book the first', 0], ['the second one', 1], ['#3', 2], ['option 3', 2], ['3rd', 2],
      ['Third one please', 2], ['take number 2', 1], ['2.', 1], ['first', 0]] as const) {
      expect(pickedIndex(q), q).to.equal(i);
    }
    for (const q of ['2+2', '2 apples', 'book a room', 'what is 2?', '0', 'the first meeting', 'book 2 rooms', '', 'first of all, hello']) {
      expect(pickedIndex(q), q).to.equal(undefined);
    }
  });

  it('"2" is the second choice shown to that person, after a restart too; another person\'s pick means nothing', () => {
    shown.shown('alice@localhost', LIST, CHOICES);
    expect(shown.resolve('alice@localhost', '2')).to.deep.equal({ line: CHOICES[1]?.say });
    const reopened = new ShownChoices(owners.connection, () => now);
    expect(reopened.resolve('alice@localhost', 'book the third')).to.deep.equal({ line: CHOICES[2]?.say });
    // Restarted, another answer still ends the list.
    new ShownChoices(owners.connection, () => now).shown('alice@localhost', 'It is 10:00 in Tokyo.', undefined);
    expect(new ShownChoices(owners.connection, () => now).resolve('alice@localhost', '1')).to.equal(undefined);
    shown.shown('alice@localhost', LIST, CHOICES);
    // Mallory was shown nothing: her "1" is read as typed, never as alice's choice.
    expect(shown.resolve('mallory@localhost', '1')).to.equal(undefined);
    expect(shown.resolve('alice@localhost', 'what is 2+2?'), 'not a pick').to.equal(undefined);
  });

  it('choices the text does not number (a task\'s accept / decline form) are not picked by a number: a stray "2" must not decline a task', () => {
    shown.shown('bob@localhost', 'alice assigned you a task: "Q1 report". Answer "accept", "decline" or "done".', [{ label: 'Accept', say: 'accept' }, { label: 'Decline', say: 'decline' }]);
    expect(shown.resolve('bob@localhost', '2')).to.equal(undefined);
  });

  it('a number past the list says how many there are; the list stays', () => {
    shown.shown('alice@localhost', LIST, CHOICES);
    expect(shown.resolve('alice@localhost', '7')).to.deep.equal({ outOf: 3 });
    expect(shown.resolve('alice@localhost', '1')).to.deep.equal({ line: CHOICES[0]?.say });
  });

  it('another answer (a line without choices) or 12 hours end the list: a number then reaches nothing back past it', () => {
    shown.shown('alice@localhost', LIST, CHOICES);
    shown.shown('alice@localhost', 'It is 10:00 in Tokyo.', undefined);
    expect(shown.resolve('alice@localhost', '1')).to.equal(undefined);
    shown.shown('alice@localhost', LIST, CHOICES);
    now += CHOICES_TTL_MS + 1;
    expect(shown.resolve('alice@localhost', '1')).to.equal(undefined);
  });
});
