import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("cel-go's sets extension", () => {
  it('compares by CEL equality, numbers across types', () => {
    expect(evaluateCel('sets.contains([1, 2, 3], [1.0, 2u])')).toBe(true);
    expect(evaluateCel('sets.contains([1], [])')).toBe(true);
    expect(evaluateCel('sets.equivalent([1, 2], [2, 1, 1])')).toBe(true);
    expect(evaluateCel("sets.equivalent(['a'], ['a', 'b'])")).toBe(false);
    expect(evaluateCel('sets.intersects([[1], 2], [[1]])')).toBe(true);
    expect(evaluateCel('sets.intersects([1], [])')).toBe(false);
  });

  it('charges the meter for every comparison', () => {
    const list = Array.from({ length: 300 }, (_, i) => BigInt(i));
    expect(celFailure('sets.contains(object, object)', { object: list }, { maxSteps: 50_000 })).toBe(
      'CEL evaluation exceeded its budget of 50000 steps',
    );
  });
});
