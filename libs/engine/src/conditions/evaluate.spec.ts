import { describe, expect, it } from 'vitest';
import type { Condition } from '../policy/types';
import { CONDITION_OPERATORS, ConditionError, evaluateCondition, evaluateConditions, isConditionOperator } from '.';

const yes = (message?: string): Condition => ({ key: 'a', operator: 'Equals', value: 'a', message });
const no = (message?: string): Condition => ({ key: 'a', operator: 'Equals', value: 'b', message });
const broken: Condition = { key: 'a', operator: 'Matches', value: 'a' };

describe('evaluateCondition', () => {
  it('knows every Kyverno operator, case-insensitively for dispatch', () => {
    expect(CONDITION_OPERATORS).toHaveLength(18);
    for (const op of CONDITION_OPERATORS) {
      expect(isConditionOperator(op)).toBe(true);
      expect(isConditionOperator(op.toLowerCase())).toBe(true);
    }
    expect(evaluateCondition({ key: 'x', operator: 'anyin', value: ['x'] })).toBe(true);
    expect(evaluateCondition({ key: 'x', operator: 'EQUALS', value: 'x' })).toBe(true);
  });

  it('throws ConditionError naming an unknown operator', () => {
    expect(() => evaluateCondition(broken)).toThrow(ConditionError);
    expect(() => evaluateCondition(broken)).toThrow(/unknown operator "Matches"/);
    expect(isConditionOperator('Matches')).toBe(false);
  });

  it('treats a missing key or value as null', () => {
    expect(evaluateCondition({ operator: 'Equals', value: 'a' })).toBe(false);
    expect(evaluateCondition({ key: 'a', operator: 'NotEquals' })).toBe(true);
    expect(evaluateCondition({ key: [], operator: 'AllIn' })).toBe(false);
  });
});

describe('evaluateConditions', () => {
  it('passes when there is nothing to check', () => {
    expect(evaluateConditions(undefined)).toEqual({ passed: true, message: '' });
    expect(evaluateConditions(null)).toEqual({ passed: true, message: '' });
    expect(evaluateConditions([])).toEqual({ passed: true, message: '' });
    expect(evaluateConditions({})).toEqual({ passed: true, message: '' });
    expect(evaluateConditions({ all: [] })).toEqual({ passed: true, message: '' });
  });

  it('fails a present but empty any block, like Kyverno', () => {
    expect(evaluateConditions({ any: [] }).passed).toBe(false);
  });

  it('legacy list: all must hold, the first failure is reported', () => {
    expect(evaluateConditions([yes('one'), yes('two')])).toEqual({ passed: true, message: 'one;two' });
    const result = evaluateConditions([yes('one'), no('two'), no('three')]);
    expect(result).toEqual({ passed: false, failed: [expect.objectContaining({ message: 'two' })], message: 'two' });
  });

  it('any: one passing entry is enough', () => {
    expect(evaluateConditions({ any: [no('x'), yes('y')] })).toEqual({ passed: true, message: 'y' });
    const result = evaluateConditions({ any: [no('x'), no(), no('z')] });
    expect(result.passed).toBe(false);
    expect(result.failed).toHaveLength(3);
    expect(result.message).toBe('x; z');
  });

  it('all: stops at the first failure', () => {
    const result = evaluateConditions({ all: [yes('a'), no('b'), broken] });
    expect(result).toEqual({ passed: false, failed: [expect.objectContaining({ message: 'b' })], message: 'b' });
  });

  it('any and all must both hold; failure messages combine as Kyverno reports them', () => {
    expect(evaluateConditions({ any: [yes('a')], all: [yes('b')] })).toEqual({ passed: true, message: 'a; b' });
    // any passed after one failure, then all fails: Kyverno reports both failures.
    const mixed = evaluateConditions({ any: [no('a1'), yes('a2')], all: [no('b')] });
    expect(mixed.passed).toBe(false);
    expect(mixed.message).toBe('a1; b');
    expect(mixed.failed?.map((c) => c.message)).toEqual(['a1', 'b']);
    // any fails, all passes.
    const anyFails = evaluateConditions({ any: [no('a')], all: [yes('b')] });
    expect(anyFails).toEqual({ passed: false, failed: [expect.objectContaining({ message: 'a' })], message: 'a' });
  });

  it('short-circuits past broken conditions it never needs', () => {
    expect(evaluateConditions({ any: [yes(), broken] }).passed).toBe(true);
    expect(evaluateConditions([no(), broken]).passed).toBe(false);
    expect(() => evaluateConditions({ all: [yes(), broken] })).toThrow(ConditionError);
  });

  it('rejects a conditions value that is neither a list nor an object', () => {
    expect(() => evaluateConditions('nope' as never)).toThrow(/invalid condition/);
  });
});

describe('evaluateConditions with a prepare step', () => {
  it('prepares only the conditions it reaches', () => {
    const prepared: string[] = [];
    const result = evaluateConditions(
      {
        any: [
          { key: 'first', operator: 'Equals', value: 'first' },
          { key: 'never', operator: 'Equals', value: 'never' },
        ],
      },
      (condition) => {
        prepared.push(String(condition.key));
        return condition;
      },
    );
    expect(result.passed).toBe(true);
    expect(prepared).toEqual(['first']);
  });

  it('evaluates the prepared condition, not the written one', () => {
    const result = evaluateConditions([{ key: '{{ x }}', operator: 'Equals', value: 'resolved' }], (condition) => ({
      ...condition,
      key: 'resolved',
    }));
    expect(result.passed).toBe(true);
  });
});
