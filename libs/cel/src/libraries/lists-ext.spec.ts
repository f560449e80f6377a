import { describe, expect, it } from 'vitest';
import { toCel } from '../values';
import { celFailure, evaluateCel } from './testing';

describe("cel-go's lists extension and Kubernetes' list library", () => {
  it('ranges, slices, flattens, reverses and takes ends', () => {
    expect(evaluateCel('lists.range(3)')).toEqual([0n, 1n, 2n]);
    expect(evaluateCel('[1, 2, 3, 4].slice(1, 3)')).toEqual([2n, 3n]);
    expect(celFailure('[1, 2].slice(1, 3)')).toContain('cannot slice(1, 3), list is length 2');
    expect(evaluateCel('[1, [2, [3, [4]]]].flatten()')).toEqual([1n, 2n, [3n, [4n]]]);
    expect(evaluateCel('[1, [2, [3, [4]]]].flatten(2)')).toEqual([1n, 2n, 3n, [4n]]);
    expect(celFailure('[1].flatten(-1)')).toContain('level must be non-negative');
    expect(evaluateCel('[1, 2, 3].reverse()')).toEqual([3n, 2n, 1n]);
    expect(evaluateCel('[1, 2].first().value() + [1, 2].last().value()')).toBe(3n);
    expect(evaluateCel('[].first().hasValue()')).toBe(false);
  });

  it('sorts comparable elements of one type, and by a key', () => {
    expect(evaluateCel("['b', 'c', 'a'].sort()")).toEqual(['a', 'b', 'c']);
    expect(celFailure("[1, 'b'].sort()")).toContain('list elements must have the same type');
    expect(celFailure('[[1]].sort()')).toContain('list elements must be comparable');
    const object = toCel({
      items: [
        { n: 'b', s: 2 },
        { n: 'c', s: 0 },
        { n: 'a', s: 2 },
      ],
    });
    expect(evaluateCel('object.items.sortBy(e, e.s).map(e, e.n)', { object })).toEqual(['c', 'b', 'a']);
  });

  it('keeps the first of CEL-equal elements', () => {
    expect(evaluateCel("[1, 2, 1.0, 1u, 'a', 'a', [1], [1]].distinct()")).toEqual([1n, 2n, 'a', [1n]]);
  });

  it("has Kubernetes' list functions with CEL's ordering and equality", () => {
    expect(evaluateCel('[1, 2, 2].isSorted() && ![2, 1].isSorted()')).toBe(true);
    expect(evaluateCel('[1.5, 2.5].sum()')).toBe(4);
    expect(evaluateCel("['a', 'b', 'a'].lastIndexOf('a')")).toBe(2n);
    expect(evaluateCel('[[1], [2]].indexOf([2])')).toBe(1n);
    expect(celFailure('[].max()')).toContain('max called on an empty list');
  });

  it('refuses lists past the limit before building them', () => {
    expect(celFailure('lists.range(2000)', {}, { maxListLength: 1000 })).toBe(
      'a CEL list exceeds the limit of 1000 elements',
    );
  });
});
