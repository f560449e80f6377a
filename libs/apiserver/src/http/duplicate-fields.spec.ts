import { describe, expect, it } from 'vitest';
import { duplicateFields } from './duplicate-fields';

describe('duplicateFields', () => {
  it('names each repeated key by its path, strings with escapes and nested lists included', () => {
    const text = '{"a": 1, "b": {"c": "x\\"}", "c": [1, {"d": 1, "d": 2}]}, "a": [], "e\\u0041": 0, "eA": 1}';
    expect(duplicateFields(text)).toEqual(['b.c', 'b.c[1].d', 'a', 'eA']);
  });

  it('finds nothing in a body without repeats', () => {
    expect(duplicateFields('{"spec": {"list": [{"name": "a"}, {"name": "b"}]}}')).toEqual([]);
    expect(duplicateFields('[1, "2", null, true]')).toEqual([]);
  });
});
