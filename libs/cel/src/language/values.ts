import { EvaluationError } from '@marcbachmann/cel-js';
import type { AstNode } from './internals';

/** An evaluation error located at a node, as cel-js's own errors are. */
export function celError(message: string, node?: AstNode): EvaluationError {
  return node ? new EvaluationError(message, node) : new EvaluationError(message);
}

/**
 * Edict's macros evaluate synchronously: a sub-expression that returns a promise (an asynchronous
 * function such as Kyverno's http) fails the macro with a clear error instead of being mis-read.
 */
export function synchronous(value: unknown, macro: string, node: AstNode): unknown {
  if (value instanceof Promise) {
    value.catch(() => undefined);
    throw celError(`${macro}() cannot use asynchronous functions`, node);
  }
  return value;
}
