import { Environment } from '@marcbachmann/cel-js';
import type { EvaluationBudget } from '@edict/foundation';
import { CEL_LIMITS, type CelLimits } from './limits';

/** A CEL evaluation went past one of Edict's bounds; the rule ends in `error`. */
export class CelLimitExceeded extends Error {
  override readonly name = 'CelLimitExceeded';
}

/**
 * Counts the steps of the CEL evaluations of one rule and checks the size of every value they
 * produce. Once a bound is passed the meter stays exceeded and every later step fails at once, so
 * CEL's error absorption (`||`, `&&`, quantifiers) cannot turn the error into a result; callers
 * still ask `exceeded` after evaluating.
 */
export class CelMeter {
  private steps = 0;
  private exceededWith: CelLimitExceeded | undefined;

  constructor(
    /** The evaluation's budget: its deadline is looked at as steps go by. */
    private readonly budget?: EvaluationBudget,
    readonly limits: CelLimits = CEL_LIMITS,
  ) {}

  get exceeded(): CelLimitExceeded | undefined {
    return this.exceededWith;
  }

  step(): void {
    this.budget?.step();
    if (this.exceededWith) throw this.exceededWith;
    if (++this.steps > this.limits.maxSteps) {
      throw this.fail(`CEL evaluation exceeded its budget of ${this.limits.maxSteps} steps`);
    }
  }

  /** Charges the work of a library function whose cost grows with its input (Kubernetes' cost model). */
  charge(cost: number): void {
    this.budget?.step();
    if (this.exceededWith) throw this.exceededWith;
    this.steps += Math.max(0, Math.ceil(cost));
    if (this.steps > this.limits.maxSteps) {
      throw this.fail(`CEL evaluation exceeded its budget of ${this.limits.maxSteps} steps`);
    }
  }

  /** Checks a value an expression node produced. */
  measure(value: unknown): void {
    if (typeof value === 'string') {
      if (value.length > this.limits.maxStringLength) {
        throw this.fail(`a CEL string exceeds the limit of ${this.limits.maxStringLength} characters`);
      }
    } else if (Array.isArray(value) || value instanceof Uint8Array) {
      if (value.length > this.limits.maxListLength) {
        throw this.fail(`a CEL list exceeds the limit of ${this.limits.maxListLength} elements`);
      }
    }
  }

  /** Runs a synchronous CEL evaluation under this meter (its result is measured too). */
  run<T>(evaluate: () => T): T {
    installStepHook();
    const previous = active;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the step hook charges the meter running now
    active = this;
    try {
      const result = evaluate();
      this.measure(result);
      return result;
    } finally {
      active = previous;
    }
  }

  /** Marks the meter exceeded by a bound a library function checked (sticky, as its own bounds are). */
  refuse(message: string): CelLimitExceeded {
    return this.fail(message);
  }

  private fail(message: string): CelLimitExceeded {
    this.exceededWith ??= new CelLimitExceeded(message);
    return this.exceededWith;
  }
}

/** The meter of the evaluation running now; evaluations are synchronous, so one at a time. */
let active: CelMeter | undefined;

/** Charges `cost` steps to the metered evaluation running now, if any (see CelMeter.charge). */
export function chargeCel(cost: number): void {
  active?.charge(cost);
}

/** A bound passed inside a library function: the meter running now stays exceeded, as for its own bounds. */
export function celLimitExceeded(message: string): CelLimitExceeded {
  return active ? active.refuse(message) : new CelLimitExceeded(message);
}

/** The limits of the metered evaluation running now (CEL_LIMITS outside one), to refuse oversized results before building them. */
export function activeCelLimits(): CelLimits {
  return active?.limits ?? CEL_LIMITS;
}
let installed = false;

/**
 * cel-js has no cost tracking, but every sub-expression (comprehension bodies included) is
 * evaluated through its evaluator's `run` method. The evaluator class is internal, so it is
 * reached once through `this` of a probe function in a throwaway environment, and `run` is
 * wrapped to charge the active meter; outside a metered evaluation the wrapper only delegates.
 */
function installStepHook(): void {
  if (installed) return;
  let evaluator: { run: (ast: unknown, ctx: unknown) => unknown } | undefined;
  new Environment()
    .registerFunction('probe(): bool', function (this: typeof evaluator) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- cel-js calls functions with its evaluator as `this`
      evaluator = this;
      return true;
    })
    .evaluate('probe()');
  const prototype = evaluator && (Object.getPrototypeOf(evaluator) as { run?: unknown });
  if (!prototype || typeof prototype.run !== 'function') {
    throw new Error('cannot meter CEL evaluation: the cel-js evaluator has no run method');
  }
  const run = prototype.run as (this: unknown, ast: unknown, ctx: unknown) => unknown;
  prototype.run = function meteredRun(this: unknown, ast: unknown, ctx: unknown): unknown {
    const meter = active;
    if (!meter) return run.call(this, ast, ctx);
    meter.step();
    const value = run.call(this, ast, ctx);
    meter.measure(value);
    return value;
  };
  installed = true;
}
