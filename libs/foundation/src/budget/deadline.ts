/**
 * When an evaluation must stop. The engine asks `expired()` at its cancellation points (between
 * rules and foreach iterations, every few hundred JMESPath nodes, along pattern walks), so a
 * CPU-bound evaluation stops too, which a timer alone cannot do.
 */
export interface EvaluationDeadline {
  expired(): boolean;
  /** Milliseconds left; loaders bound their waits by a share of it. Absent: no bound from here. */
  remainingMs?(): number;
  /**
   * Asked at the engine's yield points (between rules and foreach elements): a promise when the
   * evaluation has held the thread for its turn and must let other work run first (the event loop,
   * other reviews), undefined to go on at once. Absent: the evaluation never gives way.
   */
  yieldTurn?(): Promise<void> | undefined;
}

/** A deadline `ms` milliseconds from now (monotonic clock). */
export function deadlineAfter(ms: number): EvaluationDeadline {
  return deadlineAt(performance.now() + ms);
}

/** A deadline at `at`, a `performance.now()` timestamp. */
export function deadlineAt(at: number): EvaluationDeadline {
  return { expired: () => performance.now() >= at, remainingMs: () => at - performance.now() };
}

/**
 * Thrown when the deadline passed during an evaluation. It leaves Engine.validate / mutate /
 * generate as it is (never as a rule error): the caller decides what a timeout means.
 */
export class EvaluationDeadlineExceeded extends Error {
  override readonly name = 'EvaluationDeadlineExceeded';
  constructor() {
    super('policy evaluation deadline exceeded');
  }
}
