/**
 * Retries with exponential backoff and jitter: `attempts` tries in all, waiting `initialDelayMs`
 * (times a jitter of 0.5 to 1.5) after the first failure and `factor` times longer after each next
 * one, up to `maxDelayMs`. An error `retryable` refuses ends it at once; without `retryable` every
 * error is retried. (libs/kube's `withRetry` retries what Kubernetes calls transient.)
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** First delay (default 200 ms), growing by `factor` (default 2) up to `maxDelayMs` (default 5 s). */
  initialDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  /** Which errors to retry (default: every error). */
  retryable?: (error: unknown) => boolean;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const retryable = options.retryable ?? (() => true);
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
