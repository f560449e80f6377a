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
 */
export class SpecRun {
  private readonly values = new Map<string, Outcome | 'evaluating'>();
  private readonly byName: ReadonlyMap<string, NamedProgram>;
  readonly variables: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  constructor(
    private readonly spec: CompiledSpec,
    readonly activation: Record<string, unknown>,
    private readonly meter: CelMeter,
    private readonly reviews: AccessReviews,
    private readonly budget: EvaluationBudget,
  ) {
    this.byName = new Map(spec.variables.map((variable) => [variable.name, variable]));
    for (const { name } of spec.variables) {
      Object.defineProperty(this.variables, name, { enumerable: true, get: () => this.read(name) });
    }
    activation.variables = this.variables;
  }

  /** Evaluates an expression after the variables it reads (their own reads first). */
  async evaluate(program: CelProgram, reads: readonly string[], activation = this.activation): Promise<Outcome> {
    for (const name of reads) await this.ensure(name);
    return this.settle(await this.run(program, activation), false);
  }

  private async ensure(name: string): Promise<void> {
    if (this.values.has(name)) return;
    const variable = this.byName.get(name);
    if (!variable) return;
    this.values.set(name, 'evaluating');
    for (const read of variable.reads) await this.ensure(read);
    this.values.set(name, this.settle(await this.run(variable.program, this.activation), true));
  }

  /** A variable read from inside an expression: known by now, or evaluated synchronously. */
  private read(name: string): unknown {
    let state = this.values.get(name);
    if (state === 'evaluating') throw new Error(`variable ${name} refers to itself`);
    if (state === undefined) {
      const variable = this.byName.get(name);
      if (!variable) return undefined;
      this.values.set(name, 'evaluating');
      const outcome = this.runSync(variable.program);
      state = this.settle(outcome, true);
      this.values.set(name, state);
    }
    if ('error' in state) throw state.error;
    return state.value;
  }

  private runSync(program: CelProgram): Outcome {
    try {
      const value = this.meter.run(() => program.evaluate(this.activation));
      if (value instanceof Promise) {
        void value.catch(() => undefined);
        return { error: new Error('a variable read this way cannot wait for an asynchronous library call') };
      }
      return { value };
    } catch (error) {
      return { error };
    }
  }

  private async run(program: CelProgram, activation: Record<string, unknown>): Promise<Outcome> {
    try {
      return { value: await this.meter.run(() => program.evaluate(activation)) };
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
