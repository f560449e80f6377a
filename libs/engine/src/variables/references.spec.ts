import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { EvaluationContext } from './context';
import { VariableSubstitutionError } from './errors';
import { removeAnchorsFromPath, substituteReferences } from './references';
import { substituteVariables } from './substitute';

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof VariableSubstitutionError) return error.message;
    throw error;
  }
  throw new Error('expected a VariableSubstitutionError');
}

describe('substituteReferences', () => {
  it('resolves relative references against the string location', () => {
    const pattern: JsonValue = { spec: { maxReplicas: '$(./../minReplicas)', minReplicas: '2' } };
    expect(substituteReferences(pattern, '')).toEqual({ spec: { maxReplicas: '2', minReplicas: '2' } });
  });

  it('resolves absolute references from the document root', () => {
    const pattern: JsonValue = { a: { b: 'x' }, c: 'ref=$(/a/b)' };
    expect(substituteReferences(pattern, '')).toEqual({ a: { b: 'x' }, c: 'ref=x' });
  });

  it('keeps an operator prefix and renders numbers', () => {
    const pattern: JsonValue = { spec: { min: 2, max: '$(>=./../min)', ratio: 1.5, over: '$(>./../ratio)' } };
    expect(substituteReferences(pattern, '')).toEqual({ spec: { min: 2, max: '>=2', ratio: 1.5, over: '>1.500000' } });
  });

  it('ignores anchors on the referenced path', () => {
    const pattern: JsonValue = { spec: { '(name)': 'web', image: '$(./../name)' } };
    expect(substituteReferences(pattern, '')).toEqual({ spec: { '(name)': 'web', image: 'web' } });
    expect(removeAnchorsFromPath('/spec/=(a)/^(b)/X(c)/+(d)/<(e)/(f)')).toBe('/spec/a/b/c/d/e/f');
  });

  it('keeps escaped references literal', () => {
    expect(substituteReferences({ env: 'k8s.pod=\\$(POD_NAME)' }, '')).toEqual({ env: 'k8s.pod=$(POD_NAME)' });
  });

  it('is resolved against the original document, before variables', () => {
    const ctx = new EvaluationContext({ name: 'from-context' });
    const pattern: JsonValue = { a: '{{ name }}', b: '$(./../a)' };
    expect(substituteVariables(pattern, ctx)).toEqual({ a: 'from-context', b: 'from-context' });
  });

  it('returns the same document when there is no reference', () => {
    const doc: JsonValue = { a: ['$ (x)', 'y'] };
    expect(substituteReferences(doc, '')).toBe(doc);
  });

  it('reports references that cannot be resolved with Kyverno messages', () => {
    expect(message(() => substituteReferences({ a: '$(./../missing)' }, ''))).toBe(
      'got nil resolved variable $(./../missing) at path /a: <nil>',
    );
    expect(message(() => substituteReferences({ n: 1, a: '$(./../n)' }, ''))).toBe(
      'NotResolvedReferenceErr,reference $(./../n) not resolved at path /a',
    );
    expect(message(() => substituteReferences({ a: '$(>=)' }, ''))).toBe(
      'failed to resolve $(>=) at path /a: expected path, found empty reference',
    );
    // `$()` is not even a reference for Kyverno's pattern (it needs a character inside).
    expect(substituteReferences({ a: '$()' }, '')).toEqual({ a: '$()' });
    expect(message(() => substituteReferences({ b: true, a: '$(>./../b)' }, ''))).toBe(
      'failed to resolve $(>./../b) at path /a: incorrect expression: operator > does not match with value true',
    );
  });
});
