import { describe, expect, it } from 'vitest';
import { compileCel } from '../compile';
import { CEL_LIMITS } from '../limits';
import { CelMeter } from '../meter';
import { toCel } from '../values';

const run = (expression: string, activation: Record<string, unknown> = {}, meter = new CelMeter()): unknown =>
  meter.run(() => compileCel(expression, { params: false, authorizer: false }, 'any').evaluate(activation));

const literals = (count: number) => `[${Array.from({ length: count }, (_, i) => `'v${i}'`).join(', ')}]`;

describe('literal lists built once', () => {
  it('gives the same list on every evaluation, a fresh copy each time', () => {
    const first = run("['a', 1, 2.5, true, null]") as unknown[];
    expect(first).toEqual(['a', 1n, 2.5, true, null]);
    first.push('changed');
    expect(run("['a', 1, 2.5, true, null]")).toEqual(['a', 1n, 2.5, true, null]);
  });

  it('charges the meter for its elements on later evaluations as on the first', () => {
    const limits = { ...CEL_LIMITS, maxSteps: 60 };
    const expression = `size(${literals(80)}) > 0`;
    // The first evaluation runs every element; later ones charge them without running them.
    for (let i = 0; i < 3; i++)
      expect(() => run(expression, {}, new CelMeter(undefined, limits))).toThrow('budget of 60 steps');
    expect(run(`size(${literals(40)}) > 0`, {}, new CelMeter(undefined, limits))).toBe(true);
  });

  it('answers `in` over a literal list of strings as CEL equality does', () => {
    for (let i = 0; i < 2; i++) {
      expect(run("'b' in ['a', 'b']")).toBe(true);
      expect(run("'c' in ['a', 'b']")).toBe(false);
      expect(run("dyn(1) in ['a', 'b']")).toBe(false);
      expect(run("object.x in ['a', 'b']", { object: toCel({ x: 'a' }) })).toBe(true);
      expect(run("object.x in ['a', 'b']", { object: toCel({ x: { a: 1 } }) })).toBe(false);
      expect(run("dyn(1) in [1, 'b']")).toBe(true);
      expect(run('dyn(2.0) in [1, 2]')).toBe(true);
    }
  });
});

describe('list concatenation of dyn operands', () => {
  it('concatenates lists whatever their elements, and keeps the other overloads', () => {
    const object = toCel({ a: [{ name: 'x' }], b: ['y', 1], s: 'p', n: 2 });
    expect(run('object.a + object.b', { object })).toEqual([{ name: 'x' }, 'y', 1n]);
    expect(run('object.a + []', { object })).toEqual([{ name: 'x' }]);
    expect(run("object.s + 'q'", { object })).toBe('pq');
    expect(run('object.n + 1', { object })).toBe(3n);
    expect(() => run('object.a + object.s', { object })).toThrow('no such overload');
  });
});
