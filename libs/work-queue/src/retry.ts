/**
 * Retries for API writes: exponential backoff with jitter, only for errors worth retrying
 * (connection failures, timeouts, 429, 5xx); a clear answer (403, 404, 422, ...) ends at once.
 */
import { toKubeApiError } from '@edict/kube';

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** First delay (default 200 ms), growing by `factor` (default 2) up to `maxDelayMs` (default 5 s). */
  initialDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  /** Which errors to retry (default: isTransientError). */
  retryable?: (error: unknown) => boolean;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function withRetry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const retryable = options.retryable ?? isTransientError;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let delay = options.initialDelayMs ?? 200;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= attempts || !retryable(error)) throw error;
      await sleep(delay * (0.5 + random()));
      delay = Math.min(options.maxDelayMs ?? 5_000, delay * (options.factor ?? 2));
    }
  }
}

/** Worth another try: no answer from the server (network, timeout), 429 Too Many Requests or 5xx. */
export function isTransientError(error: unknown): boolean {
  const api = toKubeApiError(error);
  if (!api) return true;
  return api.code === 429 || api.code >= 500 || api.code === 0;
}
