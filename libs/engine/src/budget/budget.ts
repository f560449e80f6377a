import type { JsonValue } from '../json';
import { EvaluationDeadlineExceeded, type EvaluationDeadline } from './deadline';
import { jsonSizeWithin, type SizeMemo } from './json-size';
import { DEFAULT_EVALUATION_LIMITS, EvaluationLimitExceeded, formatSize, type EvaluationLimits } from './limits';

/** Steps (JMESPath nodes, pattern nodes) between two looks at the clock. */
const STEPS_PER_CHECK = 256;

/**
 * The bounds of one evaluation: its deadline and its size limits. Both are sticky: once the
 * deadline passed or a limit was exceeded, the budget remembers it, so the engine still reports it
 * when some inner step caught the error (a foreach that skips a failing element, a deferred loader
 * that only logs, a message falling back to a simpler one).
 */
export class EvaluationBudget {
  readonly limits: Readonly<EvaluationLimits>;
  private stepsLeft = STEPS_PER_CHECK;
  private expiredAlready = false;
  private exceeded: EvaluationLimitExceeded | undefined;

  /**
   * `sizes` memoises measured values; share one among the evaluations of a request so its data is
   * measured once.
   */
  constructor(
    limits: Partial<EvaluationLimits> = {},
    private readonly deadline?: EvaluationDeadline,
    private readonly sizes: SizeMemo = new Map(),
  ) {
    const complete = limits.maxContextSize !== undefined && limits.maxResultSize !== undefined;
    this.limits = complete ? (limits as EvaluationLimits) : { ...DEFAULT_EVALUATION_LIMITS, ...limits };
  }

  /** One unit of work; looks at the deadline every few hundred. */
  step(): void {
    if (--this.stepsLeft > 0) return;
    this.stepsLeft = STEPS_PER_CHECK;
    this.checkDeadline();
  }

  /** Throws EvaluationDeadlineExceeded once the deadline has passed (and from then on). */
  checkDeadline(): void {
    if (this.expiredAlready || this.deadline?.expired()) {
      this.expiredAlready = true;
      throw new EvaluationDeadlineExceeded();
    }
  }

  /**
   * At a yield point: a promise when the evaluation must give way before it goes on (its deadline's
   * `yieldTurn`), undefined to go on at once.
   */
  pause(): Promise<void> | undefined {
    return this.deadline?.yieldTurn?.();
  }

  get expired(): boolean {
    return this.expiredAlready;
  }

  /**
   * Throws (and remembers) a limit error when a value built by `source` (a function name, or what
   * else built it: 'a projection') is larger than the result limit.
   */
  checkResult(value: JsonValue, source: string): void {
    const limit = this.limits.maxResultSize;
    if (limit > 0 && jsonSizeWithin(value, limit, this.sizes) > limit) throw this.resultTooLarge(source);
  }

  /** For builders that know their output length before making it (join, padding, replacements). */
  checkLength(length: number, source: string): void {
    const limit = this.limits.maxResultSize;
    if (limit > 0 && length > limit) throw this.resultTooLarge(source);
  }

  /** The limit error for a result of `source`, remembered. */
  resultTooLarge(source: string): EvaluationLimitExceeded {
    const what = source.startsWith('a ') ? source : `the result of ${source}()`;
    return this.fail(`${what} exceeds the ${formatSize(this.limits.maxResultSize)} JMESPath result size limit`);
  }

  /**
   * Charges a context entry's value to the context, whose entries so far hold `used`; returns the
   * new total, or throws (and remembers) Kyverno's context size error.
   */
  chargeContext(used: number, value: JsonValue, entry: string): number {
    const limit = this.limits.maxContextSize;
    if (limit <= 0) return used;
    const total = used + jsonSizeWithin(value, limit - used, this.sizes);
    if (total > limit) {
      throw this.fail(
        `context size limit exceeded: entry ${entry} brings the context past the limit of ${limit} bytes (${formatSize(limit)})`,
      );
    }
    return total;
  }

  /** Forgets a remembered limit error and returns it (the engine reports one per rule). */
  takeLimitError(): EvaluationLimitExceeded | undefined {
    const error = this.exceeded;
    this.exceeded = undefined;
    return error;
  }

  private fail(message: string): EvaluationLimitExceeded {
    const error = new EvaluationLimitExceeded(message);
    this.exceeded ??= error;
    return error;
  }
}

/** The errors that end an evaluation or a rule whatever catches them on the way. */
export function isBudgetError(error: unknown): error is EvaluationDeadlineExceeded | EvaluationLimitExceeded {
  return error instanceof EvaluationDeadlineExceeded || error instanceof EvaluationLimitExceeded;
}
