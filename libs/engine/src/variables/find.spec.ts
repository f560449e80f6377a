import { describe, expect, it } from 'vitest';
import { findVariables, hasVariables } from './find';

describe('hasVariables / findVariables', () => {
  it('finds variables in strings and keys, inner before outer', () => {
    const doc = { a: ['x {{ request.object.metadata.name }}'], '{{ key }}': { b: '{{ a.{{ b }} }}' } };
    expect(hasVariables(doc)).toBe(true);
    expect(findVariables(doc)).toEqual(['request.object.metadata.name', 'key', 'b', 'a.{{ b }}']);
  });

  it('ignores escaped variables and plain text', () => {
    expect(hasVariables({ a: '\\{{ x }}', b: 'no { vars }', c: 1 })).toBe(false);
    expect(findVariables('\\{{ x.{{ y }} }}')).toEqual(['y']);
  });

  it('uses the first scan for irregular strings', () => {
    expect(findVariables('{{{ a }}')).toEqual(['a']);
  });
});
