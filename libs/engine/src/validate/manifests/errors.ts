import { errorMessage } from '@edict/foundation';
/**
 * Errors whose kind decides the rule result, as k8s-manifest-sigstore's typed errors do in Kyverno: a
 * missing message or signature makes the entry fail, any other error makes the rule answer `error`.
 */
export type ManifestErrorKind = 'message-not-found' | 'signature-not-found' | 'other';

export class ManifestError extends Error {
  constructor(
    readonly kind: ManifestErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** `prefix: cause`, keeping the cause's kind (Go's `%w` wrapping). */
export function wrapError(prefix: string, cause: unknown): ManifestError {
  const kind = cause instanceof ManifestError ? cause.kind : 'other';
  const text = errorMessage(cause);
  return new ManifestError(kind, `${prefix}: ${text}`);
}

export function errorKind(error: unknown): ManifestErrorKind {
  return error instanceof ManifestError ? error.kind : 'other';
}
