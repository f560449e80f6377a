/**
 * Verification could not be carried out: the registry failed, or the policy's trust material is
 * unusable. An ERROR result that the failure policy decides on; a signature that simply does not
 * verify is `verified: false`, never this error.
 */
export class ImageVerificationError extends Error {
  /** The policy field at fault (e.g. `attestors[0].entries[0].keys.publicKeys`), when there is one. */
  readonly field?: string;

  constructor(message: string, options: { field?: string; cause?: unknown } = {}) {
    super(options.field ? `${options.field}: ${message}` : message, { cause: options.cause });
    this.name = 'ImageVerificationError';
    this.field = options.field;
  }
}
