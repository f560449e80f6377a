/**
 * A `{{ }}` variable or `$( )` reference that could not be substituted. The message is Kyverno's
 * (`failed to resolve <variable> at path <path>: <reason>`), which ends up in rule responses.
 */
export class VariableSubstitutionError extends Error {
  override readonly name: string = 'VariableSubstitutionError';

  constructor(
    message: string,
    /** The variable (JMESPath text after nesting and rewrites) or reference that failed. */
    readonly variable: string,
    /** JSON-pointer-like path of the string inside the substituted document (Kyverno's format). */
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * A query against the evaluation context failed. Messages follow Kyverno's context: `invalid query
 * (nil)`, `incorrect query <q>: <syntax error>`, `JMESPath query failed: <reason>`.
 */
export class ContextQueryError extends Error {
  override readonly name: string = 'ContextQueryError';

  constructor(
    message: string,
    /** True when the query failed only because a key was missing (Kyverno's `Unknown key "x" in path`). */
    readonly notFound: boolean = false,
  ) {
    super(message);
  }
}
