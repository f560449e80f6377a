import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { compileStringPattern, isRangePattern, matchStringPattern, matchValue } from './leaf';

function cases(pattern: JsonValue, table: [JsonValue, boolean][]): void {
  for (const [value, expected] of table) {
    it(`${JSON.stringify(value)} against ${JSON.stringify(pattern)} → ${expected}`, () => {
      expect(matchValue(value, pattern)).toBe(expected);
    });
  }
}

describe('matchValue: wildcards and plain strings', () => {
  cases('nginx', [
    ['nginx', true],
    ['nginx2', false],
    [null, false],
  ]);
  cases('*', [
    ['', true],
    ['anything', true],
    [7, true],
    [false, true],
    [null, false],
    [{}, false],
    [[], false],
  ]);
  cases('?*', [
    ['a', true],
    ['', false],
    [null, false],
    [0, true],
    [true, true],
  ]);
  cases('*:latest', [
    ['nginx:latest', true],
    ['nginx:1.2', false],
    ['registry:5000/app:latest', true],
  ]);
  cases('ng?nx', [
    ['nginx', true],
    ['ngnx', false],
  ]);
  cases('', [
    ['', true],
    [null, false],
    [0, false],
  ]);
  // a one-character string is never an operator
  cases('!', [
    ['!', true],
    ['x', false],
  ]);
  cases('>', [['>', true]]);
});

describe('matchValue: negation, or, and', () => {
  cases('!*:latest', [
    ['nginx:1.2', true],
    ['nginx:latest', false],
    [null, false],
  ]);
  cases('!nginx', [
    ['redis', true],
    ['nginx', false],
    [null, false],
    [5, true],
  ]);
  cases('*:latest | !*:*', [
    ['nginx', true],
    ['nginx:latest', true],
    ['nginx:1.0', false],
  ]);
  cases('a|b', [
    ['a', true],
    ['b', true],
    ['a|b', true],
    ['c', false],
  ]);
  cases('!5.10.84-1 & !5.15.2-1', [
    ['5.16.5-arch1-1', true],
    ['5.10.84-1', false],
    ['5.15.2-1', false],
  ]);
  cases('?* & !default', [
    ['app', true],
    ['default', false],
    ['', false],
  ]);
  cases('>1 & <5 | 10', [
    [3, true],
    [10, true],
    [5, false],
    [0, false],
  ]);
});

describe('matchValue: numeric comparisons (quantities)', () => {
  cases('>1', [
    [2, true],
    ['2', true],
    [1, false],
    ['0.5', false],
    ['abc', false],
    [null, false],
    [true, false],
  ]);
  cases('>=1', [
    [1, true],
    ['1000m', true],
    [0.999, false],
  ]);
  cases('<1', [
    [null, true],
    [0, true],
    ['2', false],
  ]);
  cases('<=0', [
    [null, true],
    [-1, true],
    [1, false],
  ]);
  // "0" also parses as a duration, so null (read as "0") compares as a duration
  cases('>0', [
    [null, false],
    [1, true],
    ['1s', true],
  ]);
  cases('0', [
    [null, true],
    [0, true],
    ['0', true],
    [false, false],
    ['', false],
  ]);
  cases('1', [
    [1, true],
    ['1', true],
    ['01', true],
    ['1.0', true],
    [1.5, false],
    [true, false],
  ]);
  cases('1.5', [
    [1.5, true],
    ['1500m', true],
  ]);
  cases('1Gi', [
    ['1024Mi', true],
    ['1Gi', true],
    ['1G', false],
    [1073741824, true],
  ]);
  cases('<=1Gi', [
    ['512Mi', true],
    ['1Gi', true],
    ['2Gi', false],
    ['lots', false],
  ]);
  cases('>1Gi', [
    ['2G', true],
    ['1000Mi', false],
  ]);
  cases('100m', [
    ['0.1', true],
    ['100m', true],
    [0.1, true],
  ]);
  cases('!100Mi', [
    ['200Mi', true],
    ['100Mi', false],
    ['104857600', false],
  ]);
});

describe('matchValue: durations', () => {
  cases('1h', [
    ['60m', true],
    ['3600s', true],
    ['1h0m0s', true],
    ['61m', false],
  ]);
  cases('<1h', [
    ['30m', true],
    ['2h', false],
  ]);
  cases('>=1h', [
    ['59m59s', false],
    ['1h1s', true],
  ]);
  cases('>5s', [
    ['10s', true],
    ['1s', false],
    [10, false],
    ['ten', false],
  ]);
  cases('!30s', [
    ['30s', false],
    ['0.5m', false],
    ['31s', true],
  ]);
  // "1m" is a duration (minute) and a quantity (milli): the duration is tried first
  cases('1m', [
    ['60s', true],
    ['0.001', true],
    [1, false],
  ]);
});

describe('matchValue: ranges', () => {
  cases('10-20', [
    [15, true],
    ['15', true],
    [10, true],
    [20, true],
    [25, false],
    [9, false],
    ['x', false],
  ]);
  cases('10!-20', [
    [25, true],
    [9, true],
    [15, false],
    [10, false],
    [20, false],
  ]);
  cases('1Gi-2Gi', [
    ['1536Mi', true],
    ['3Gi', false],
  ]);
  cases('1h-2h', [
    ['90m', true],
    ['3h', false],
  ]);
  cases('-5-5', [
    [-5, true],
    [0, true],
    [6, false],
  ]);
  cases('0.5-1.5', [
    [1, true],
    ['2', false],
  ]);
  // an operator prefix wins over the range syntax
  cases('!10-20', [
    ['10-20', false],
    [15, true],
  ]);
  // not a range: endpoints must be numbers with an optional unit
  cases('a-b', [
    ['a-b', true],
    ['a', false],
  ]);
  cases('5.10.84-1', [
    ['5.10.84-1', true],
    [5, false],
  ]);
});

describe('matchValue: non-string patterns', () => {
  cases(1, [
    [1, true],
    ['1', true],
    ['1.0', true],
    ['01', true],
    ['1e0', true],
    ['abc', false],
    [true, false],
    [null, false],
    [1.5, false],
  ]);
  cases(1.5, [
    [1.5, true],
    ['1.5', true],
    [1, false],
  ]);
  cases(1000, [
    ['1_000', true],
    ['1e3', true],
    ['0x3e8p0', true],
  ]);
  cases(true, [
    [true, true],
    [false, false],
    ['true', false],
    [1, false],
  ]);
  cases(false, [
    [false, true],
    [null, false],
    ['false', false],
  ]);
  cases(null, [
    [null, true],
    [0, true],
    ['', true],
    [false, true],
    ['a', false],
    [1, false],
    [true, false],
    [[], false],
    [{}, false],
  ]);
  cases({}, [
    [{}, true],
    [{ a: 1 }, true],
    ['x', false],
    [null, false],
  ]);
  cases(
    [],
    [
      [[], false],
      ['x', false],
    ],
  );
  it('treats a missing value like null', () => {
    expect(matchValue(undefined, null)).toBe(true);
    expect(matchValue(undefined, '<1')).toBe(true);
    expect(matchValue(undefined, '*')).toBe(false);
  });
});

describe('matchValue: strings against numbers and booleans', () => {
  cases('true', [
    [true, true],
    ['true', true],
    [false, false],
  ]);
  cases('5', [
    [5, true],
    [5.0, true],
    ['5', true],
  ]);
  cases('1.5', [[1.5, true]]);
  cases('!1', [
    [2, true],
    [1, false],
  ]);
});

describe('compileStringPattern', () => {
  it('parses alternatives, conjunctions, operators and ranges once', () => {
    const compiled = compileStringPattern(' >= 1Gi & <2Gi | 5-10 | !x ');
    expect(compiled).toBe(compileStringPattern(' >= 1Gi & <2Gi | 5-10 | !x '));
    expect(compiled.alternatives).toHaveLength(3);
    const [first, second, third] = compiled.alternatives;
    expect(first!.map((c) => c.kind === 'compare' && [c.comparison.operator, c.comparison.operand])).toEqual([
      ['>=', '1Gi'],
      ['<', '2Gi'],
    ]);
    expect(second![0]).toMatchObject({ kind: 'range', negated: false, low: { operator: '>=', operand: '5' } });
    expect(third![0]).toMatchObject({ kind: 'compare', comparison: { operator: '!', operand: 'x' } });
  });

  it('trims only spaces around alternatives but all Go whitespace around operands', () => {
    const compiled = compileStringPattern('>\t5');
    expect(compiled.alternatives[0]![0]).toMatchObject({ comparison: { operator: '>', operand: '5' } });
  });
});

// Also the matcher the In-family condition operators use for range values.
describe('range patterns (as condition values)', () => {
  it.each([
    ['1-10', true],
    ['-5-10', true],
    ['1.5-2.5', true],
    ['100Mi-1Gi', true],
    ['1h-2h', true],
    ['1!-10', false],
    ['a-b', false],
    ['1-', false],
    ['>1', false],
    ['1', false],
  ])('%s is a range: %s', (pattern, expected) => {
    expect(isRangePattern(pattern)).toBe(expected);
  });

  it.each([
    ['5', '1-10', true],
    ['10', '1-10', true],
    ['11', '1-10', false],
    ['512Mi', '256Mi-1Gi', true],
    ['30m', '1h-2h', false],
    ['90m', '1h-2h', true],
    ['11', '1!-10', true],
    ['5', '1!-10', false],
    ['5', '>3 & <7', true],
    ['9', '>3 & <7', false],
    ['9', '<3 | >7', true],
    ['abc', 'a*', true],
    ['abc', '!a*', false],
    ['x', 'x', true],
  ])('%s matches %s: %s', (value, pattern, expected) => {
    expect(matchStringPattern(value, compileStringPattern(pattern))).toBe(expected);
  });
});
