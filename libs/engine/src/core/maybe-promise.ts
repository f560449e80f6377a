/**
 * A result that is ready at once or arrives later. Rule evaluation is synchronous unless a step
 * really waits (a context entry read from outside, CEL access reviews, an UPDATE's old object):
 * keeping the common path free of promises saves a promise and a microtask per step.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `next` to the value now, or once it arrives. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
