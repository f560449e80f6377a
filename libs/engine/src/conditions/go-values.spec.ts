import { describe, expect, it } from 'vitest';
import { decodeStringList, goFormatFloat, goSprint } from './go-values';

describe('goSprint (fmt.Sprint of decoded JSON)', () => {
  it.each([
    ['a', 'a'],
    [1, '1'],
    [1.5, '1.5'],
    [-2, '-2'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e21, '1e+21'],
    [1.5e-300, '1.5e-300'],
    [-0, '-0'],
    [true, 'true'],
    [null, '<nil>'],
    [['a', 1, null], '[a 1 <nil>]'],
    [{ b: 2, a: 'x' }, 'map[a:x b:2]'],
  ])('%j → %s', (value, expected) => {
    expect(goSprint(value)).toBe(expected);
  });

  it('formats non-finite floats like Go', () => {
    expect(goFormatFloat(Infinity)).toBe('+Inf');
    expect(goFormatFloat(NaN)).toBe('NaN');
  });
});

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
