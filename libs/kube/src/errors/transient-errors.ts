/**
 * Retries for API calls: exponential backoff with jitter (libs/work-queue), only for errors worth
 * retrying (connection failures, timeouts, 429, 5xx); a clear answer (403, 404, 422, ...) ends at once.
 */
import { retryWithBackoff, type RetryOptions } from '@edict/work-queue';
import { toKubeApiError } from './kube-api-error';

/** Worth another try: no answer from the server (network, timeout), 429 Too Many Requests or 5xx. */
export function isTransientError(error: unknown): boolean {
  const api = toKubeApiError(error);
  if (!api) return true;
  return api.code === 429 || api.code >= 500 || api.code === 0;
}

/** `operation` retried with backoff while it fails with a transient error (or what `options.retryable` says). */
export function withRetry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  return retryWithBackoff(operation, { ...options, retryable: options.retryable ?? isTransientError });
}
