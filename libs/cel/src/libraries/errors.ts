import { EvaluationError } from '@marcbachmann/cel-js';

/** A CEL runtime error raised by one of Edict's library functions. */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}
