import { describe, expect, it } from 'vitest';
import { EvaluationBudget, EvaluationDeadlineExceeded } from '@edict/foundation';
import { compileCel } from './compile';
import { CEL_LIMITS } from './limits';
import { CelLimitExceeded, CelMeter } from './meter';

const evaluate = (meter: CelMeter, expression: string, activation: Record<string, unknown> = {}) =>
  meter.run(() => compileCel(expression, { params: false, authorizer: false }, 'any').evaluate(activation));

const hundred = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;

describe('CelMeter', () => {
  it('counts every node evaluated, comprehension bodies once per element, and stops at its budget', () => {
    const meter = new CelMeter(undefined, { ...CEL_LIMITS, maxSteps: 50_000 });
    expect(evaluate(meter, `${hundred}.all(a, a >= 0)`)).toBe(true);
    // 100 x 100 inner bodies of several nodes each: past 50,000 steps.
    expect(() => evaluate(meter, `${hundred}.all(a, ${hundred}.all(b, a + b >= 0))`)).toThrow(
      'CEL evaluation exceeded its budget of 50000 steps',
    );
    expect(meter.exceeded).toBeInstanceOf(CelLimitExceeded);
  });

  it("stays exceeded: CEL's error absorption cannot rescue an expression, later evaluations fail at once", () => {
    const meter = new CelMeter(undefined, { ...CEL_LIMITS, maxSteps: 500 });
    expect(() =>
      evaluate(meter, `[1, 2].exists(x, x == 1 ? ${hundred}.all(a, ${hundred}.all(b, true)) : true)`),
    ).toThrow('CEL evaluation exceeded its budget of 500 steps');
    expect(meter.exceeded?.message).toBe('CEL evaluation exceeded its budget of 500 steps');
    expect(() => evaluate(meter, '1 == 1')).toThrow(CelLimitExceeded);
  });

  it('refuses strings and lists larger than its bounds, built or read', () => {
    const limits = { ...CEL_LIMITS, maxStringLength: 1000, maxListLength: 100 };
    expect(() =>
      evaluate(
        new CelMeter(undefined, limits),
        'cel.bind(s, "0123456789", cel.bind(t, s + s + s + s + s + s + s + s + s + s, t + t + t + t + t + t + t + t + t + t + t))',
      ),
    ).toThrow('a CEL string exceeds the limit of 1000 characters');
    expect(() => evaluate(new CelMeter(undefined, limits), `${hundred} + [1]`)).toThrow(
      'a CEL list exceeds the limit of 100 elements',
    );
    expect(() => evaluate(new CelMeter(undefined, limits), 'object.size()', { object: 'x'.repeat(2000) })).toThrow(
      'a CEL string exceeds the limit of 1000 characters',
    );
  });

  it("looks at the evaluation's deadline as steps go by", () => {
    const budget = new EvaluationBudget({}, { expired: () => true });
    expect(() => evaluate(new CelMeter(budget), `${hundred}.all(a, ${hundred}.all(b, true))`)).toThrow(
      EvaluationDeadlineExceeded,
    );
    expect(budget.expired).toBe(true);
  });

  it('charges nothing to an evaluation outside a metered run', () => {
    const meter = new CelMeter(undefined, { ...CEL_LIMITS, maxSteps: 5 });
    const program = compileCel(`${hundred}.all(a, true)`, { params: false, authorizer: false }, 'bool');
    expect(program.evaluate({})).toBe(true);
    expect(meter.exceeded).toBeUndefined();
  });
});
