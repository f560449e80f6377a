import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("cel-go's math extension", () => {
  it('finds the greatest and least of mixed numbers, as arguments or a list, keeping the winner its type', () => {
    expect(evaluateCel('math.greatest(1, 2.5, 3u) == 3u')).toBe(true);
    expect(evaluateCel('math.least([3, 1.5, 2u])')).toBe(1.5);
    expect(evaluateCel('math.greatest(-9223372036854775808, 1)')).toBe(1n);
    expect(evaluateCel('math.greatest(5)')).toBe(5n);
    expect(celFailure("math.greatest('a', 1)")).toContain('no such overload');
    expect(celFailure('math.least([])')).toContain('math.least() requires at least one argument');
    expect(celFailure("math.greatest('a')")).toContain("'math.greatest(string)'");
  });

  it('rounds as Go does and refuses what cel-go refuses', () => {
    expect(
      evaluateCel('[math.ceil(-1.2), math.floor(-1.2), math.round(-1.5), math.round(2.5), math.trunc(-1.7)]'),
    ).toEqual([-1, -2, -2, 3, -1]);
    expect(celFailure('math.ceil(dyn(1))')).toContain('no matching overload');
    expect(evaluateCel('[math.abs(-3), math.sign(-2), math.sign(0.0), math.sqrt(16)]')).toEqual([3n, -1n, 0, 4]);
    expect(celFailure('math.abs(-9223372036854775808)')).toContain('overflow');
    expect(evaluateCel('[math.isNaN(0.0/0.0), math.isInf(1.0/0.0), math.isFinite(1.0/0.0)]')).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('works on the 64 bits of ints and uints', () => {
    expect(evaluateCel('[math.bitAnd(6, 3), math.bitOr(4, -2), math.bitXor(1, 3), math.bitNot(0)]')).toEqual([
      2n,
      -2n,
      2n,
      -1n,
    ]);
    expect(evaluateCel('math.bitShiftRight(-1024, 3)')).toBe(2305843009213693824n);
    expect(evaluateCel('math.bitShiftLeft(1, 200)')).toBe(0n);
    expect(evaluateCel('string(math.bitNot(0u))')).toBe('18446744073709551615');
    expect(celFailure('math.bitShiftLeft(1u, -1)')).toContain('negative offset');
  });
});
