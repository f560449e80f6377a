/**
 * A problem in the user's input (a test file, a values file, a policy, a resource), located by file and
 * field path so the message can be acted on without a stack trace.
 */
export class LoadError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    readonly detail: string,
    /** A message already naming the file (engine diagnostics). */
    formatted?: string,
  ) {
    super(formatted ?? (field ? `${file}: ${field}: ${detail}` : `${file}: ${detail}`));
    this.name = 'LoadError';
  }
}
