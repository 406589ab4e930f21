import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { continued, LastValue, VALUE_TTL_MS } from '../../agents/presenter/last-value.js';
import { SqliteThreadOwners } from '../../agents/presenter/thread-owners.js';
import { arithmeticExpert } from '../../skills/arithmetic/arithmetic.js';
import { ask } from '../../shared/skills/expert.js';

describe('Presenter: a calculation goes on from the number just told (last-value.ts)', () => {
  let dir: string;
  let owners: SqliteThreadOwners;
  let now: number;
  let last: LastValue;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-last-value-'));
    owners = new SqliteThreadOwners(path.join(dir, 'presenter-threads.sqlite'));
    now = Date.parse('2026-12-07T20:00:00Z');
    last = new LastValue(owners.connection, () => now);
  });
  afterEach(() => {
    owners.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the ways people go on, and the arithmetic skill answers what it becomes', async () => {
    const cases: Array<[string, string, string]> = [
      ['and times 2?', '391 times 2', '782'],
      ['times 2', '391 times 2', '782'],
      ['plus 9', '391 plus 9', '400'],
      ['then divided by 17', '391 divided by 17', '23'],
      ['minus 1', '391 minus 1', '390'],
      ['* 2', '391 * 2', '782'],
      ['x 3', '391 x 3', '1173'],
      ['/ 17', '391 / 17', '23'],
      ['- 91', '391 - 91', '300'],
      ['squared', '391 squared', '152881'],
      ['and to the power of 2', '391 to the power of 2', '152881'],
      ['divide that by 17', '391 / 17', '23'],
      ['multiply it by 2', '391 * 2', '782'],
      ['add 9 to that', '391 + 9', '400'],
      ['subtract 91 from it', '391 - 91', '300'],
      ['double that', 'double 391', '782'],
      ['half of that', 'half of 391', '195.5'],
      ["what's that times 2?", '391 times 2', '782'],
      ['and what is the answer plus 9', '391 plus 9', '400'],
      ['the square root of that', 'the square root of 391', '19.7737199333'],
    ];
    for (const [line, becomes, answer] of cases) {
      expect(continued(line, '391'), line).to.equal(becomes);
      expect((await ask(arithmeticExpert, becomes)).answer, becomes).to.equal(answer);
    }
  });

  it('leaves every line that stands on its own as typed', () => {
    for (const line of ['what is 17 * 23?', '-5', 'what is minus 5 plus 2?', '2', 'hello', 'times square', 'x', '- buy milk', 'plus', 'cancel that meeting',
      'move it to 3pm', 'what is it?', 'and what time is it in Tokyo?', 'thanks', '5 times 3']) {
      expect(continued(line, '391'), line).to.equal(undefined);
    }
    // A long line is never taken apart (bounded work on any input): 'add 1…1' with no 'to that'.
    expect(continued(`add ${'1 '.repeat(5000)}`, '391')).to.equal(undefined);
    expect(continued(`times ${'2'.repeat(150)}`, '391')).to.equal(`391 times ${'2'.repeat(150)}`);
  });

  it('goes on only from the last line to that person, when it is a number, for 30 minutes, and after a restart', () => {
    const alice = 'alice@localhost';
    expect(last.resolve(alice, 'times 2'), 'nothing told yet').to.equal('nothing');
    expect(last.resolve(alice, 'what is 17 * 23?'), 'a line of its own').to.equal(undefined);
    last.told(alice, '391');
    expect(last.resolve(alice, 'times 2')).to.deep.equal({ line: '391 times 2' });
    expect(last.resolve(alice, 'hello'), 'a line of its own').to.equal(undefined);
    expect(last.resolve('mallory@localhost', 'times 2'), "another person's number").to.equal('nothing');
    last.told(alice, 'It is 21:30 in Tokyo.');
    expect(last.resolve(alice, 'times 2'), 'another answer came since').to.equal('nothing');
    // A note in brackets after the number is not part of it (log(100) typed says which logarithm it is).
    last.told(alice, '4.60517018599 (the natural logarithm; log10(100) = 2)');
    expect(last.resolve(alice, 'times 2')).to.deep.equal({ line: '4.60517018599 times 2' });
    last.told(alice, '12 (or so) (really)');
    expect(last.resolve(alice, 'times 2'), 'only one note').to.equal('nothing');
    last.told(alice, '1.5e+20');
    owners.close();
    owners = new SqliteThreadOwners(path.join(dir, 'presenter-threads.sqlite'));
    last = new LastValue(owners.connection, () => now);
    expect(last.resolve(alice, 'and / 3'), 'after a restart').to.deep.equal({ line: '1.5e+20 / 3' });
    now += VALUE_TTL_MS + 1;
    expect(last.resolve(alice, 'and / 3'), 'past 30 minutes').to.equal('nothing');
  });
});
