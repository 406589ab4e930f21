import { expect } from 'chai';
import { ParleyError } from '../../shared/acl/index.js';
import { ask, pickExpert } from '../../shared/skills/expert.js';
import { arithmeticExpert, toExpression } from '../../skills/arithmetic/arithmetic.js';
import { inspect } from '../../skills/arithmetic/math-sandbox.js';
import { KNOWN_PLACES, resolvePlace } from '../../skills/time/places.js';
import { createTimeExpert } from '../../skills/time/time.js';

// Thursday 12 March 2026, 12:30 UTC (Tokyo 21:30, Warsaw 13:30, New York 08:30 EDT).
const NOW = new Date('2026-03-12T12:30:00Z');
const time = createTimeExpert({ now: () => NOW });
const experts = [arithmeticExpert, time];

async function invalid(p: Promise<unknown>): Promise<ParleyError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ParleyError);
    expect((err as ParleyError).code).to.equal('INVALID_ARGS');
    return err as ParleyError;
  }
  throw new Error('expected INVALID_ARGS');
}

describe('experts [arithmetic] answers real questions exactly', () => {
  const cases: Array<[string, string]> = [
    ['what is 17 * 23?', '391'],
    ['What is 17*23', '391'],
    ['what is 2.5 km in miles?', '1.55343 miles'],
    ['how many miles is 2.5 km?', '1.55343 miles'],
    ['sqrt(2)', '1.41421356237'],
    ['15% of 80', '12'],
    ['what is 15 percent of 80?', '12'],
    ['convert 100 fahrenheit to celsius', '37.7778 celsius'],
    ['what is 100 °F in °C?', '37.7778 °C'],
    ['what is 100 degrees F in C?', '37.7778 °C'],
    ['5 kg to lb', '11.0231 lb'],
    ['what is 0.1 + 0.2?', '0.3'],
    ['what is 2 to the power of 10?', '1024'],
    ['what is 12 x 12?', '144'],
    ['what is 7 plus 5 times 3?', '22'],
    ['what is 100 divided by 8?', '12.5'],
    ['what is the square root of 144?', '12'],
    ['what is the square root of -1?', 'i'],
    ['the square root of 2.25', '1.5'],
    ['what is the cube root of (20 + 7)?', '3'],
    ['cube root of -8', '-2'],
    ['calculate (3 + 4) * 5', '35'],
    // Typed fast or in full (each "wat is 2+2"-like line got "I can't help with that one").
    ['wat is 2+2', '4'],
    ['what is 15% tip on 80 dollars', '12'],
    ['what is a 20% tip on $45.50?', '9.1'],
    ['20% off 50', '40'],
    ['what is $12.50 * 3?', '37.5'],
    ['what is 5 pounds in kg?', '2.26796 kg'],
    ['what s 6 * 7', '42'],
    ['how many km in a mile?', '1.60934 km'],
    ['how many seconds in a day', '86400 seconds'],
    ['how many ounces in a pound?', '16 ounces'],
    ['double 21', '42'],
    ['round 3.14159 to 2 decimals', '3.14'],
    ['what is the log of 100?', '2'],
    // Typed, log is mathjs's natural logarithm: the answer says so and gives the common one.
    ['log(100)', '4.60517018599 (the natural logarithm; log10(100) = 2)'],
    ['natural log of 1', '0'],
    ['what is the sine of 90 degrees', '1'],
    ['cos of 60 deg', '0.5'],
    ['gcd of 12 and 18', '6'],
    ['the least common multiple of 4 and 6', '12'],
    ['convert 30 c to f', '86 °F'],
    ['what is twice 7.5?', '15'],
    ['half of 90', '45'],
    ['what is a third of 120?', '40'],
    ['a quarter of $80', '20'],
    ['waht is 10 - 3?', '7'],
    ["what’s 2^10", '1024'],
    ['what is the value of 3 * 7?', '21'],
    ['work out 17 * 3', '51'],
    ['what is 3 feet in cm?', '91.44 cm'],
    ['10 km/h to m/s', '2.77778 m / s'],
    ['what is pi?', '3.14159265359'],
    ['factorial(10)', '3628800'],
    ['what is 2^64?', '18446744073709551616'],
    ['what is 2 to the power of 100 minus 1?', '1267650600228229401496703205375'],
    ['25 factorial', '15511210043330985984000000'],
    ['what is 99999999999 * 99999999999?', '9999999999800000000001'],
    ['what is -3^41?', '-36472996377170786403'],
    ['what is 2^2000?', '1.14813069527e+602'],
    ['what is 2^64 / 3?', '6.14891469124e+18'],
    ['what is 1000 factorial?', '4.02387260077e+2567'],
    ['what is 1.5 * 10^20?', '1.5e+20'],
    ['what is -7 mod 3?', '2'],
    ['10 factorial', '3628800'],
    ['what is the factorial of 5?', '120'],
    ['average of 3, 5 and 10', '6'],
    ['what is the median of 7, 1, 3 and 100?', '5'],
    ['the sum of 1.5, 2.5 and -1', '3'],
    ['the largest of 3, 17, 9', '17'],
    ['is 97 a prime number?', 'Yes, 97 is a prime number.'],
    ['is 91 prime?', 'No, 91 is not a prime number: 91 = 7 × 13.'],
    ['is 1 a prime?', 'No, 1 is not a prime number (a prime is a whole number greater than 1).'],
    ['what is 10 km in miles and 5 kg in lb?', '10 km in miles: 6.21371 miles\n5 kg in lb: 11.0231 lb'],
    ['what is 3 + 4 and what is 6 * 7?', '3 + 4: 7\n6 * 7: 42'],
  ];
  for (const [q, a] of cases) {
    it(`${JSON.stringify(q)} → ${a}`, async () => {
      expect(pickExpert(experts, q)?.name).to.equal('arithmetic');
      expect((await ask(arithmeticExpert, q)).answer).to.equal(a);
    });
  }

  it('says which expert answered and the expression it evaluated', async () => {
    expect(await ask(arithmeticExpert, 'what is 2.5 km in miles?')).to.deep.equal({
      answer: '1.55343 miles', meta: { expression: '2.5 km in miles', expert: 'arithmetic' },
    });
    expect(toExpression('what is 15% of 80?')).to.equal('15% * 80');
  });

  it('answers INVALID_ARGS for maths it recognises but cannot evaluate', async () => {
    expect((await invalid(ask(arithmeticExpert, 'what is 5 / '))).detail).to.match(/Unexpected end of expression/);
    expect((await invalid(ask(arithmeticExpert, '5 blorps to kg'))).detail).to.equal('unknown unit or name: blorps');
    expect((await invalid(ask(arithmeticExpert, 'what is 5 m + 3 kg?'))).detail).to.match(/Units do not match/);
    expect((await invalid(ask(arithmeticExpert, 'what is 1/0?'))).detail).to.match(/not a finite number/);
    // Too large even to compute exactly (9^387420489 has 370 million digits): refused, never computed
    // (power() checks the size first; computing it would outlast the test's timeout).
    expect((await invalid(ask(arithmeticExpert, 'what is 9^9^9?'))).detail).to.match(/not a finite number/);
    for (const q of ['what is 5 / ', '5 blorps to kg', 'what is 1/0?']) expect(pickExpert(experts, q)?.name, q).to.equal('arithmetic');
  });

  it('[sandbox] refuses definitions, assignments, matrices and disabled functions', async () => {
    // mathjs's internals are not a reason a person can use ("Unexpected type of argument in function multiplyScalar (expected: …").
    expect((await invalid(ask(arithmeticExpert, '30 min'))).detail).to.equal('cannot evaluate "30 min": its parts do not go together (a function name used as a value, or a value where a unit belongs?)');
    expect((await invalid(ask(arithmeticExpert, 'sin(1, 2)'))).detail).to.equal('cannot evaluate "sin(1, 2)": a function got too many or too few values');
    expect((await invalid(ask(arithmeticExpert, '5 kg to km'))).detail).to.match(/^cannot evaluate "5 kg to km": Units do not match/);
    expect((await invalid(ask(arithmeticExpert, 'f(x) = x^2'))).detail).to.match(/not allowed/);
    expect((await invalid(ask(arithmeticExpert, 'a = 5 + 1'))).detail).to.match(/not allowed/);
    expect((await invalid(ask(arithmeticExpert, 'ones(10000, 10000)'))).detail).to.equal('function ones is not allowed');
    expect((await invalid(ask(arithmeticExpert, 'evaluate("1+1")'))).detail).to.match(/not allowed/);
    expect(inspect('import({}, {})')).to.include({ status: 'forbidden' });
    expect(inspect('createUnit("foo")')).to.include({ status: 'forbidden' });
    expect(inspect('[1,2,3]')).to.include({ status: 'forbidden' });
  });

  it('does not take questions about time, dates or anything else', () => {
    for (const q of ['what time is it in Tokyo?', 'what is the date in 10 days?', 'how many days until 2027-01-01?',
      'what day of the week is 2026-12-25?', 'tell me a joke', 'who wrote Hamlet?', 'what is love?', 'wat is love', 'what is the value of friendship?', 'how much are apples?']) {
      expect(arithmeticExpert.recognise(q), q).to.equal(0);
    }
  });
});

describe('experts [time] answers with an injected clock', () => {
  const cases: Array<[string, string]> = [
    ['what time is it in Tokyo?', 'It is 21:30 in Tokyo (Asia/Tokyo, UTC+09:00) on Thursday, 12 March 2026.'],
    ['What is the time in New York?', 'It is 08:30 in New York (America/New_York, UTC-04:00) on Thursday, 12 March 2026.'],
    ['what time is it in Europe/Warsaw?', 'It is 13:30 in Europe/Warsaw (UTC+01:00) on Thursday, 12 March 2026.'],
    ['what time is it in Kathmandu?', 'It is 18:15 in Kathmandu (Asia/Kathmandu, UTC+05:45) on Thursday, 12 March 2026.'],
    ['what time is it in Auckland?', 'It is 01:30 in Auckland (Pacific/Auckland, UTC+13:00) on Friday, 13 March 2026.'],
    ['what time is it?', 'It is 12:30 UTC on Thursday, 12 March 2026.'],
    ['how many days until 2027-01-01?', '295 days until Friday, 1 January 2027.'],
    ['how many days until tomorrow?', '1 day until Friday, 13 March 2026.'],
    ['how many weeks until christmas?', '41 weeks and 1 day until Friday, 25 December 2026.'],
    ['how many days since 2020-01-01?', '2262 days since Wednesday, 1 January 2020.'],
    ['how many days between 2026-01-01 and 2026-12-31?', '364 days between Thursday, 1 January 2026 and Thursday, 31 December 2026.'],
    ['how long ago was 1 january 2000?', 'Saturday, 1 January 2000 was 26 years, 2 months and 11 days ago (9,567 days).'],
    ['how long until christmas?', 'Friday, 25 December 2026 is 9 months and 13 days away (288 days).'],
    ['what is the time difference between Tokyo and London?', 'Tokyo is 9 hours ahead of London: it is 21:30 in Tokyo and 12:30 in London.'],
    ['time difference between new york and auckland', 'New York is 17 hours behind Auckland: it is 08:30 on Thursday in New York and 01:30 on Friday in Auckland.'],
    ['how many hours ahead is Kathmandu of London?', 'Kathmandu is 5 h 45 min ahead of London: it is 18:15 in Kathmandu and 12:30 in London.'],
    ['what day of the week is 2026-12-25?', '2026-12-25 is a Friday.'],
    ['what day of the week was July 20, 1969?', '1969-07-20 was a Sunday.'],
    ['time in utc', 'It is 12:30 UTC on Thursday, 12 March 2026.'],
    ['what is 3 hours from now?', 'In 3 hours it will be 15:30 UTC on Thursday, 12 March 2026.'],
    ['what time will it be in 90 minutes?', 'In 90 minutes it will be 14:00 UTC on Thursday, 12 March 2026.'],
    ['what is 12 hours from now', 'In 12 hours it will be 00:30 UTC on Friday, 13 March 2026.'],
    ['what day is it today?', '2026-03-12 is a Thursday.'],
    ['what is the date in 10 days?', 'Sunday, 22 March 2026 (2026-03-22).'],
    ['what was the date 3 weeks ago?', 'Thursday, 19 February 2026 (2026-02-19).'],
    ["what's 3 weeks from today?", 'Thursday, 2 April 2026 (2026-04-02).'],
    ['what date is ten days after tomorrow', 'Monday, 23 March 2026 (2026-03-23).'],
    ['2 months from now', 'Tuesday, 12 May 2026 (2026-05-12).'],
    ['what day of the week is a year from today?', '2027-03-12 is a Friday.'],
    ['what time is 9am PST in Berlin?', '09:00 today in PST (America/Los_Angeles) is 17:00 in Berlin (Europe/Berlin).'],
    ['convert 3pm tokyo time to london time', '15:00 today in Tokyo (Asia/Tokyo) is 06:00 in London (Europe/London).'],
    ['11pm in new york in tokyo', '23:00 today in New York (America/New_York) is 12:00 the next day (Friday) in Tokyo (Asia/Tokyo).'],
    ['what is 7:30 in auckland in london', '07:30 today in Auckland (Pacific/Auckland) is 18:30 the day before (Thursday) in London (Europe/London).'],
    ['noon CET to IST', '12:00 today in CET (Europe/Berlin) is 16:30 in IST (Asia/Kolkata).'],
    ['what time is it in EST?', 'It is 08:30 in EST (America/New_York, UTC-04:00) on Thursday, 12 March 2026.'],
    ['what time is it in california', 'It is 05:30 in California (America/Los_Angeles, UTC-07:00) on Thursday, 12 March 2026.'],
    ['how many days in february 2028?', 'February 2028 has 29 days.'],
    ['how many days are there in april', 'April 2026 has 30 days.'],
    ['is 2027 a leap year?', 'No, 2027 is not a leap year; the next one is 2028.'],
    ['is 2000 a leap year', 'Yes, 2000 is a leap year: February has 29 days.'],
    ['days between jan 1 and march 1', '59 days between Friday, 1 January 2027 and Monday, 1 March 2027.'],
    ['time in sydney vs london', 'It is 23:30 in Sydney (Australia/Sydney, UTC+11:00) and 12:30 in London (Europe/London, UTC+00:00) on Thursday, 12 March 2026.'],
    ['time difference tokyo vs london', 'Tokyo is 9 hours ahead of London: it is 21:30 in Tokyo and 12:30 in London.'],
    ["what's the date today?", 'Thursday, 12 March 2026 (2026-03-12).'],
    ['what is the date in Tokyo?', 'Thursday, 12 March 2026 (2026-03-12) in Tokyo.'],
    ['what time is it in new york and london?', 'It is 08:30 in New York (America/New_York, UTC-04:00) and 12:30 in London (Europe/London, UTC+00:00) on Thursday, 12 March 2026.'],
    ['time in Tokyo, Auckland and Warsaw', 'It is 21:30 in Tokyo (Asia/Tokyo, UTC+09:00) on Thursday, 12 March 2026, 01:30 in Auckland (Pacific/Auckland, UTC+13:00) on Friday, 13 March 2026 and 13:30 in Warsaw (Europe/Warsaw, UTC+01:00) on Thursday, 12 March 2026.'],
    ['what week number is it?', '2026-03-12 is in week 11 of 2026 (ISO 8601: Monday 9 to Sunday 15 March).'],
    ['which week is 2027-01-01?', '2027-01-01 is in week 53 of 2026 (ISO 8601: Monday 28 December to Sunday 3 January).'],
    ['calendar week of 2026-02-01', '2026-02-01 was in week 5 of 2026 (ISO 8601: Monday 26 January to Sunday 1 February).'],
    // Ages (each got "I can't help with that one" on npm start).
    ['how old is someone born in 1990?', 'Someone born in 1990 is 35 or 36: 36 once their birthday this year has passed (today is Thursday, 12 March 2026).'],
    ["what's my age if I was born on 3 May 1990", 'Born on Thursday, 3 May 1990: 35 years, 10 months and 9 days old today (13,097 days). The next birthday, the 36th, is Sunday, 3 May 2026 (in 52 days).'],
    ['how old am I if I was born on 12 march 2000?', 'Born on Sunday, 12 March 2000: 26 years old today (9,496 days). Happy birthday: it is today. The next birthday, the 27th, is Friday, 12 March 2027 (in 365 days).'],
    ['age of someone born on 29 feb 2000', 'Born on Tuesday, 29 February 2000: 26 years and 12 days old today (9,508 days). The next birthday, the 27th, is Sunday, 28 February 2027 (in 353 days).'],
  ];
  for (const [q, a] of cases) {
    it(`${JSON.stringify(q)} → ${a}`, async () => {
      expect(pickExpert(experts, q)?.name).to.equal('time');
      expect((await ask(time, q)).answer).to.equal(a);
    });
  }

  it('carries machine-readable meta next to the sentence', async () => {
    expect((await ask(time, 'how many days until 2027-01-01?')).meta).to.deep.equal({ days: 295, from: '2026-03-12', to: '2027-01-01', expert: 'time' });
    expect((await ask(time, 'what time is it in Tokyo?')).meta).to.include({ zone: 'Asia/Tokyo', iso: '2026-03-12T21:30:00.000+09:00' });
  });

  it('answers INVALID_ARGS for an unknown place or a missing date', async () => {
    expect((await invalid(ask(time, 'what time is it in Atlantis?'))).detail).to.match(/^unknown place "Atlantis"/);
    expect((await invalid(ask(time, 'how many days until the heat death of the universe?'))).detail).to.match(/no date found/);
    expect((await invalid(ask(time, 'how old is someone born in 2030?'))).detail).to.equal('2030 is still ahead');
    expect((await invalid(ask(time, 'how old is someone born on 1 jan 2030?'))).detail).to.equal('Tuesday, 1 January 2030 is still ahead');
    expect((await invalid(ask(time, 'how old am I if I was born yesterdayish?'))).detail).to.match(/no birth date found/);
  });

  it('knows 40+ places and IANA names', () => {
    expect(KNOWN_PLACES).to.be.greaterThan(100);
    expect(resolvePlace('the city of São Paulo')).to.deep.equal({ label: 'São Paulo', zone: 'America/Sao_Paulo' });
    expect(resolvePlace('america/new_york')?.zone).to.equal('America/New_York');
    expect(resolvePlace('Kyiv')?.zone).to.equal('Europe/Kyiv');
    expect(resolvePlace('Mars/Olympus_Mons')).to.equal(undefined);
  });

  it('does not take arithmetic or other questions', () => {
    for (const q of ['what is 17*23?', 'what is 2.5 km in miles?', 'sqrt(2)', 'tell me a joke', 'who is the president of France?']) {
      expect(time.recognise(q), q).to.equal(0);
    }
    expect(pickExpert(experts, 'tell me a joke')).to.equal(undefined);
  });
});
