import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { EvaluationContext } from './context';
import { NO_PROGRESS, rescanSubstitute, variableExpression } from './rescan';
import { substituteVariables } from './substitute';

/**
 * The parsed-template evaluation is an optimisation of Kyverno's re-scanning algorithm; on any
 * input both must agree (value or error message). Random strings mix braces, escapes and names.
 */
const ctx = new EvaluationContext({
  a: 'A',
  b: 'B',
  e: '',
  n: 7,
  o: { k: 'v' },
  A: 'deep',
  B: true,
  x: { a: 'XA' },
  br: 'x{y',
});

function kyverno(source: string): { value?: JsonValue; error?: string } {
  try {
    const value = rescanSubstitute(source, (text) => {
      const expression = variableExpression(text);
      try {
        return ctx.query(expression);
      } catch (error) {
        throw new Error(`failed to resolve ${expression} at path : ${(error as Error).message}`);
      }
    });
    return value === NO_PROGRESS ? { error: 'no progress' } : { value };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function ours(source: string): { value?: JsonValue; error?: string } {
  try {
    return { value: substituteVariables(source, ctx) };
  } catch (error) {
    const message = (error as Error).message;
    return { error: message.startsWith('variable substitution does not terminate') ? 'no progress' : message };
  }
}

const tokens = [
  '{{',
  '}}',
  '{',
  '}',
  '\\',
  ' ',
  '.',
  'a',
  'b',
  'e',
  'n',
  'o',
  'x',
  'br',
  '{{a}}',
  '{{ b }}',
  '{{e}}',
  '{{n}}',
  '{{o}}',
  '{{br}}',
  "'",
  'q',
];

describe('template evaluation vs Kyverno re-scan', () => {
  it('agrees on random strings', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...tokens), { maxLength: 14 }), (parts) => {
        const source = parts.join('');
        // Container results are walked again by substituteVariables; compare plain outcomes only.
        expect(ours(source)).toEqual(kyverno(source));
      }),
      { numRuns: 3000 },
    );
  });
});
