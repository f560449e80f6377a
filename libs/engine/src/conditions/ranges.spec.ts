import { describe, expect, it } from 'vitest';
import { isRangePattern, matchesStringPattern } from './ranges';

describe('range patterns', () => {
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
    expect(matchesStringPattern(value, pattern)).toBe(expected);
  });
});
