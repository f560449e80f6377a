/**
 * When an evaluation must stop. The engine asks `expired()` at its cancellation points (between
 * rules and foreach iterations, every few hundred JMESPath nodes, along pattern walks), so a
 * CPU-bound evaluation stops too, which a timer alone cannot do.
 */
export interface EvaluationDeadline {
  expired(): boolean;
}

/** A deadline `ms` milliseconds from now (monotonic clock). */
export function deadlineAfter(ms: number): EvaluationDeadline {
  return deadlineAt(performance.now() + ms);
}

/** A deadline at `at`, a `performance.now()` timestamp. */
export function deadlineAt(at: number): EvaluationDeadline {
  return { expired: () => performance.now() >= at };
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
