/**
 * The two cluster failures the runner must tell from the rest, as chainsaw's client does: a kind
 * the server does not serve (discovery has no mapping for it, which is not "object not found"),
 * and an answer worth retrying (the server was busy, not refusing). Messages are what chainsaw's
 * `$error` would hold.
 */

/**
 * Discovery does not serve the kind in that apiVersion (no CRD for it, or the API is off). An
 * operation on it fails as such: it never reads as a missing object or feeds an `expect`.
 */
export class NoKindMatchError extends Error {
  override readonly name = 'NoKindMatchError';

  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no matches for kind "${kind}" in version "${apiVersion}"`);
  }
}

/**
 * An answer a write may retry: a conflict on a stale resourceVersion, a timeout, throttling or an
 * unavailable server. Any other answer (a refusal, "already exists", an invalid object) is final.
 */
export class TransientClusterError extends Error {
  override readonly name = 'TransientClusterError';

  constructor(
    message: string,
    /** The HTTP status, when the server answered (absent for a client-side timeout). */
    readonly code?: number,
  ) {
    super(message);
  }
}

/** Kubernetes reasons (and HTTP statuses) of the transient answers. */
const TRANSIENT_REASONS = new Set(['Conflict', 'Timeout', 'ServerTimeout', 'TooManyRequests', 'ServiceUnavailable']);
const TRANSIENT_CODES = new Set([429, 503, 504]);

/**
 * Whether an API answer is transient. A 409 counts only with reason Conflict: AlreadyExists is 409
 * too, and a create that meets it has its final answer.
 */
export function isTransientAnswer(code: number, reason: string): boolean {
  return TRANSIENT_REASONS.has(reason) || TRANSIENT_CODES.has(code);
}
