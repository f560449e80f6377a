import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('collection functions', () => {
  it('lookup: object key or array index', () => {
    expect(jp("lookup(@, 'a.b')", { 'a.b': 1 })).toBe(1);
    expect(jp("lookup(@, 'missing')", { a: 1 })).toBeNull();
    expect(jp('lookup(@, `1`)', ['x', 'y'])).toBe('y');
    expect(jp('lookup(@, `5`)', ['x'])).toBeNull();
    expect(jp('lookup(@, `-1`)', ['x'])).toBeNull();
    expect(() => jp('lookup(@, `1`)', { a: 1 })).toThrow(
      "JMESPath function 'lookup': argument #2 is not of type String",
    );
    expect(() => jp("lookup(@, 'a')", ['x'])).toThrow("JMESPath function 'lookup': argument #2 is not of type Number");
    expect(() => jp('lookup(@, `0.5`)', ['x'])).toThrow(/argument #2: expected an integer number/);
    expect(() => jp("lookup('s', 'a')")).toThrow(/type/);
  });

  it('items: sorted object entries or indexed array entries (Kyverno replaces the standard items)', () => {
    expect(jp("items(@, 'key', 'value')", { b: 2, a: 1 })).toEqual([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    expect(jp("items(@, 'i', 'v')", ['x', 'y'])).toEqual([
      { i: 0, v: 'x' },
      { i: 1, v: 'y' },
    ]);
    expect(jp("items(@, 'k', 'v')", {})).toEqual([]);
    expect(() => jp('items(@)', { a: 1 })).toThrow(/arity/);
    expect(() => jp("items(@, `1`, 'v')", { a: 1 })).toThrow(/type/);
  });

  it('object_from_lists: keys stringified, missing values null', () => {
    expect(jp("object_from_lists(['a', 'b'], [`1`, `2`])")).toEqual({ a: 1, b: 2 });
    expect(jp("object_from_lists(['a', 'b'], [`1`])")).toEqual({ a: 1, b: null });
    expect(jp("object_from_lists([`1.5`, `true`], ['x', 'y', 'z'])")).toEqual({ '1.5': 'x', true: 'y' });
    expect(jp("object_from_lists([`16777217`], ['x'])")).toEqual({ '16777216': 'x' }); // float32 text, as in Kyverno
    expect(() => jp("object_from_lists([`null`], ['x'])")).toThrow(
      "JMESPath function 'object_from_lists': argument #1 is not of type StringArray",
    );
    expect(() => jp("object_from_lists('a', [])")).toThrow(/type/);
  });

  it('label_match: every selector label present with the same value', () => {
    expect(jp('label_match(`{"app": "web"}`, `{"app": "web", "tier": "fe"}`)')).toBe(true);
    expect(jp('label_match(`{"app": "web"}`, `{"app": "db"}`)')).toBe(false);
    expect(jp('label_match(`{}`, `{"app": "db"}`)')).toBe(true);
    expect(jp('label_match(`{"app": "web"}`, `{}`)')).toBe(false);
    expect(() => jp('label_match(`[]`, `{}`)')).toThrow(/type/);
  });
});
