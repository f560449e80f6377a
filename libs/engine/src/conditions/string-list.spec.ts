import { describe, expect, it } from 'vitest';
import { decodeStringList } from './string-list';

describe('decodeStringList (json.Unmarshal into []string)', () => {
  it.each([
    ['["a","b"]', { kind: 'list', items: ['a', 'b'] }],
    [' [ "a" ] ', { kind: 'list', items: ['a'] }],
    ['null', { kind: 'list', items: [] }],
    ['["a",null]', { kind: 'list', items: ['a', ''] }],
    ['[1]', { kind: 'wrongType' }],
    ['"a"', { kind: 'wrongType' }],
    ['{}', { kind: 'wrongType' }],
    ['abc', { kind: 'notJson' }],
    ['[a]', { kind: 'notJson' }],
  ])('%s', (s, expected) => {
    expect(decodeStringList(s)).toEqual(expected);
  });
});
