import type { AccessReviews, CelMeter, CelProgram } from '@edict/cel';
import { EvaluationDeadlineExceeded, type EvaluationBudget } from '@edict/foundation';
import type { CompiledSpec, NamedProgram } from '../compile/compiled-expressions';

export type Outcome = { value: unknown } | { error: unknown };

/** An evaluation round met an authorizer check without an answer yet (see AccessReviews). */
export const PENDING = Symbol('pending access reviews');

/**
 * One round of a spec's expressions on one request: metered by one CelMeter, with `variables`
 * evaluated at most once each, on first use and in declaration order, as Kubernetes composes them.
 * Edict's bounds and the deadline end the round with their error whatever CEL did with it; an
 * expression error while authorizer checks wait for answers ends it with PENDING.
 *
 * The variables an expression reads (found when compiled: `variables.<name>`) are evaluated just
 * before it, their own reads first; a variable's error surfaces only where it is read. So
 * `variables` stays a plain object and everything stays synchronous unless a library call answers
 * with a Promise (hot path).
 */
export class SpecRun {
  private readonly values = new Map<string, Outcome | 'evaluating'>();
  /** `variables`: each one set when first needed (see `reads`), in declaration order. */
  readonly variables: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  constructor(
    private readonly spec: CompiledSpec,
    readonly activation: Record<string, unknown>,
    private readonly meter: CelMeter,
    private readonly reviews: AccessReviews,
    private readonly budget: EvaluationBudget,
  ) {
    activation.variables = this.variables;
  }

  variable(name: string): NamedProgram | undefined {
    return this.spec.variableIndex.get(name);
  }

  /**
   * Evaluates the variables an expression run elsewhere reads (a mutation's patcher), their own
   * reads first, so `variables` holds them; a Promise only when a library call waits.
   */
  prepare(reads: readonly string[]): Promise<void> | undefined {
    for (let i = 0; i < reads.length; i++) {
      const pending = this.ensure(reads[i] as string);
      if (pending) return pending.then(() => this.prepare(reads.slice(i + 1)));
    }
    if (this.budget.expired) throw new EvaluationDeadlineExceeded();
    const exceeded = this.meter.exceeded ?? this.reviews.exceeded;
    if (exceeded) throw exceeded;
    return undefined;
  }

  /** Evaluates an expression after the variables it reads (their own reads first). */
  evaluate(program: CelProgram, reads: readonly string[], activation = this.activation): Outcome | Promise<Outcome> {
    for (let i = 0; i < reads.length; i++) {
      const pending = this.ensure(reads[i] as string);
      if (pending) return this.evaluateAfter(pending, program, reads.slice(i + 1), activation);
    }
    const outcome = this.run(program, activation);
    if (outcome instanceof Promise) return outcome.then((settled) => this.settle(settled, false));
    return this.settle(outcome, false);
  }

  private async evaluateAfter(
    pending: Promise<void>,
    program: CelProgram,
    reads: readonly string[],
    activation: Record<string, unknown>,
  ): Promise<Outcome> {
    await pending;
    return this.evaluate(program, reads, activation);
  }

  /** Evaluates a variable (and what it reads) unless known; a Promise only when a library call waits. */
  private ensure(name: string): Promise<void> | undefined {
    if (this.values.has(name)) return undefined;
    const variable = this.variable(name);
    if (!variable) return undefined;
    this.values.set(name, 'evaluating');
    for (let i = 0; i < variable.reads.length; i++) {
      const pending = this.ensure(variable.reads[i] as string);
      if (pending) return this.ensureAfter(pending, name, variable);
    }
    const outcome = this.run(variable.program, this.activation);
    if (outcome instanceof Promise) {
      return outcome.then((settled) => this.record(name, this.settle(settled, true)));
    }
    this.record(name, this.settle(outcome, true));
    return undefined;
  }

  /**
   * Makes a variable's outcome readable: a value as a plain property, an error as a property that
   * throws it when (and only when) an expression reads it.
   */
  private record(name: string, outcome: Outcome): void {
    this.values.set(name, outcome);
    if ('value' in outcome) this.variables[name] = outcome.value;
    else {
      Object.defineProperty(this.variables, name, {
        enumerable: true,
        get: () => {
          throw outcome.error;
        },
      });
    }
  }

  private async ensureAfter(pending: Promise<void>, name: string, variable: NamedProgram): Promise<void> {
    await pending;
    for (const read of variable.reads) await this.ensure(read);
    const outcome = await this.run(variable.program, this.activation);
    this.record(name, this.settle(outcome, true));
  }

  private run(program: CelProgram, activation: Record<string, unknown>): Outcome | Promise<Outcome> {
    try {
      const value = this.meter.run(() => program.evaluate(activation));
      if (value instanceof Promise) {
        return value.then(
          (settled: unknown) => ({ value: settled }),
          (error: unknown) => ({ error }),
        );
      }
      return { value };
    } catch (error) {
      return { error };
    }
  }

  private settle(outcome: Outcome, nested: boolean): Outcome {
    if (this.budget.expired) throw new EvaluationDeadlineExceeded();
    const exceeded = this.meter.exceeded ?? this.reviews.exceeded;
    if (exceeded) throw exceeded;
    if (!nested && 'error' in outcome && this.reviews.pending.length > 0) throw PENDING;
    return outcome;
  }
}
