import { describe, expect, it } from 'vitest';
import { blankStrings, indexedVariableReferences, readsIdentifier, variableReferences } from './references';

describe('expression references', () => {
  it('blanks string literals of every CEL form, keeping positions', () => {
    const source = `a == 'x.y' && b == "q\\"r" && c == r'\\d' && d == '''v.w'''`;
    const blanked = blankStrings(source);
    expect(blanked).toHaveLength(source.length);
    expect(blanked).not.toMatch(/x\.y|q|v\.w/);
    expect(blanked.startsWith('a == ')).toBe(true);
  });

  it('finds variables read by field and by index, not inside strings', () => {
    const source = `variables.a + variables . b + size(variables['c']) + ('variables.d').size() + x.variables.e`;
    expect(variableReferences(source)).toEqual(['a', 'b']);
    expect(indexedVariableReferences(source)).toEqual(['c']);
  });

  it('finds top-level identifiers only', () => {
    expect(readsIdentifier("request.operation == 'CREATE'", 'request')).toBe(true);
    expect(readsIdentifier('object.request == 1', 'request')).toBe(false);
    expect(readsIdentifier("'request' == object.kind", 'request')).toBe(false);
    expect(readsIdentifier('requestCount == 1', 'request')).toBe(false);
  });
});
