/**
 * One round of CEL evaluation for one policy call (a binding with one parameter object), bounded as
 * kube-apiserver bounds it: each expression by a per-call limit, all expressions of the call together
 * by a runtime budget, and the whole by the evaluation's deadline. Authorizer checks are answered
 * between rounds (see AccessReviews): a round that met an unanswered check stops with PENDING and
 * is run again once the answers are known.
 */
import { AccessReviews, CEL_LIMITS, CelLimitExceeded, CelMeter, describeCelError, type CelProgram } from '@edict/cel';
import { EvaluationBudget, EvaluationDeadlineExceeded, type EvaluationDeadline } from '@edict/foundation';

/** Evaluation steps one expression may take (kube's per-call cost limit). */
export const PER_EXPRESSION_STEPS = CEL_LIMITS.maxSteps;
/** Evaluation steps all expressions of one call may take together (kube's runtime budget). */
export const PER_CALL_STEPS = 10 * CEL_LIMITS.maxSteps;

export interface CelBounds {
  perExpressionSteps: number;
  perCallSteps: number;
}

export const DEFAULT_BOUNDS: CelBounds = { perExpressionSteps: PER_EXPRESSION_STEPS, perCallSteps: PER_CALL_STEPS };

/** kube's words when a call spends its runtime budget. */
export const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';
/** kube's words when one expression passes the per-call cost limit. */
const EXPRESSION_LIMIT = 'operation cancelled: actual cost limit exceeded';

/** The round met an authorizer check whose answer is not known yet. */
export const PENDING = Symbol('pending access reviews');

/** The call's runtime budget is spent: no further expression of the call runs. */
export class CallBudgetExceeded extends CelLimitExceeded {
  constructor() {
    super(OUT_OF_BUDGET);
  }
}

/** Counts the steps of every expression of a call (CelMeter charges its budget once per step). */
class CallBudget extends EvaluationBudget {
  private used = 0;
  over = false;

  constructor(
    private readonly max: number,
    deadline?: EvaluationDeadline,
  ) {
    super({}, deadline);
  }

  override step(): void {
    super.step();
    if (this.over || ++this.used > this.max) {
      this.over = true;
      throw new CallBudgetExceeded();
    }
  }
}

export type Outcome = { value: unknown } | { error: string };

export class CelRound {
  private readonly budget: CallBudget;

  constructor(
    readonly reviews: AccessReviews,
    private readonly bounds: CelBounds = DEFAULT_BOUNDS,
    deadline?: EvaluationDeadline,
  ) {
    this.budget = new CallBudget(bounds.perCallSteps, deadline);
  }

  /**
   * Evaluates `program`: its value, or kube's `expression '...' resulted in error: ...`. Throws
   * CallBudgetExceeded, EvaluationDeadlineExceeded, and PENDING (top level only: a variable is
   * evaluated inside another expression, which decides).
   */
  evaluate(program: CelProgram, activation: Readonly<Record<string, unknown>>, nested = false): Outcome {
    const meter = new CelMeter(this.budget, { ...CEL_LIMITS, maxSteps: this.bounds.perExpressionSteps });
    let outcome: Outcome;
    try {
      const value = meter.run(() => program.evaluate(activation));
      outcome =
        value instanceof Promise
          ? { error: errorOf(program, 'asynchronous functions are not available here') }
          : { value };
    } catch (error) {
      outcome = { error: errorOf(program, error) };
    }
    if (this.budget.expired) throw new EvaluationDeadlineExceeded();
    if (this.budget.over) throw new CallBudgetExceeded();
    const exceeded = meter.exceeded ?? this.reviews.exceeded;
    if (exceeded) {
      const limit = exceeded.message.startsWith('CEL evaluation exceeded its budget')
        ? EXPRESSION_LIMIT
        : exceeded.message;
      outcome = { error: errorOf(program, limit) };
    }
    if (!nested && 'error' in outcome && this.reviews.pending.length > 0 && !this.reviews.exceeded) throw PENDING;
    return outcome;
  }

  /**
   * `variables`: each evaluated on first use and remembered, in a call's activation, as kube
   * composes them. A variable that errors fails the expressions that read it.
   */
  lazyVariables(
    variables: readonly { name: string; program: CelProgram }[],
    activation: Record<string, unknown>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const { name, program } of variables) {
      let state: Outcome | 'evaluating' | undefined;
      Object.defineProperty(out, name, {
        enumerable: true,
        get: () => {
          if (state === 'evaluating') throw new Error(`composited variable "${name}" refers to itself`);
          if (state === undefined) {
            state = 'evaluating';
            state = this.evaluate(program, activation, true);
          }
          if ('error' in state) throw new Error(`composited variable "${name}" fails to evaluate: ${state.error}`);
          return state.value;
        },
      });
    }
    return out;
  }
}

function errorOf(program: CelProgram, error: unknown): string {
  const detail = typeof error === 'string' ? error : describeCelError(error);
  return `expression '${program.source}' resulted in error: ${detail}`;
}

/** Answers the access checks of CEL's `authorizer` (a SubjectAccessReview, or the CLI's stand-in). */
export type Authorize = (
  request: Parameters<AccessReviews['decide']>[0],
) => Promise<ReturnType<AccessReviews['decide']>> | ReturnType<AccessReviews['decide']>;

/**
 * Runs `round` until it no longer waits for authorizer answers. Without `authorize` a pending check
 * is answered with an error (fail closed), so the expression errors rather than guesses.
 */
export async function inRounds<T>(
  reviews: AccessReviews,
  authorize: Authorize | undefined,
  round: () => T,
): Promise<T> {
  for (;;) {
    try {
      return round();
    } catch (error) {
      if (error !== PENDING) throw error;
    }
    await reviews.resolve(async (question) => {
      if (!authorize) throw new Error('no authorizer is available to check access');
      return authorize(question);
    });
  }
}
