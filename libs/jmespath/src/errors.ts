/** Any failure of a JMESPath expression: syntax, bad function arguments, runtime errors. */
export class JmesPathError extends Error {
  override readonly name: string = 'JmesPathError';
}

/**
 * A path named a key that the object does not have. Kyverno's interpreter reports this as
 * `Unknown key "<key>" in path` (instead of plain JMESPath's null) whenever the missing field is
 * the value of the whole expression or of a sub-expression/index chain; most other constructs
 * (`||`, function arguments, pipes, projections, comparisons) turn it back into null.
 */
export class JmesPathNotFoundError extends JmesPathError {
  override readonly name: string = 'JmesPathNotFoundError';
  constructor(readonly key: string) {
    super(`Unknown key "${key}" in path`);
  }
}

/** Kyverno prefixes every custom-function error with the function name. */
export function functionError(fn: string, detail: string): JmesPathError {
  return new JmesPathError(`JMESPath function '${fn}': ${detail}`);
}

/** Kyverno's "argument #N is not of type T" (N is 1-based). */
export function argumentTypeError(fn: string, position: number, type: string): JmesPathError {
  return functionError(fn, `argument #${position} is not of type ${type}`);
}
