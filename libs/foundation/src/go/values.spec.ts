import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json';
import { goTypeName, goValueText, type NumberOrigin } from './values';

describe('goValueText: fmt %v of a decoded value', () => {
  it.each([
    ['a', 'a'],
    [1, '1'],
    [1.5, '1.5'],
    [1000000, '1e+06'],
    [true, 'true'],
    [null, '<nil>'],
    [undefined, '<nil>'],
    [[], '[]'],
    [{}, 'map[]'],
    [['a', 1, null], '[a 1 <nil>]'],
    [{ b: 2, a: 'x' }, 'map[a:x b:2]'],
    [{ b: 1, a: [1, 'x', null] }, 'map[a:[1 x <nil>] b:1]'],
    [{ '\u{1F600}': 1, '\uFF21': 2 }, 'map[\uFF21:2 \u{1F600}:1]'],
  ])('%j → %s', (value, expected) => {
    expect(goValueText(value)).toBe(expected);
  });

  it("prints a resource's integers as int64 and its other numbers as float64", () => {
    expect(goValueText(1000000, 'resource')).toBe('1000000');
    expect(goValueText(2 ** 70, 'resource')).toBe('1.1805916207174113e+21');
    expect(goValueText([1e21, 0.5], 'resource')).toBe('[1e+21 0.5]');
    expect(goValueText({ n: 1000000 }, 'decoded')).toBe('map[n:1e+06]');
  });
});

describe('goTypeName: fmt %T of a decoded value', () => {
  it.each<[JsonValue, NumberOrigin, string]>([
    [{}, 'resource', 'map[string]interface {}'],
    [[], 'resource', '[]interface {}'],
    ['a', 'resource', 'string'],
    [1, 'resource', 'int64'],
    [1.5, 'resource', 'float64'],
    [1, 'decoded', 'float64'],
    [false, 'resource', 'bool'],
    [null, 'resource', '<nil>'],
  ])('%j from %s → %s', (value, origin, expected) => {
    expect(goTypeName(value, origin)).toBe(expected);
  });
});
