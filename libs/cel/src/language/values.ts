import { EvaluationError } from '@marcbachmann/cel-js';
import type { AstNode } from './internals';

/** An evaluation error located at a node, as cel-js's own errors are. */
export function celError(message: string, node?: AstNode): EvaluationError {
  return node ? new EvaluationError(message, node) : new EvaluationError(message);
}
