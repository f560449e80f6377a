import { deadlineAt, EvaluationDeadlineExceeded, type EvaluationDeadline } from '@edict/foundation';
import { allow, deny, type AdmissionDecision, type FailurePolicy } from '../decision';

/** The API server's default webhook timeout, used when the request carries none. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Kubernetes' largest webhook `timeoutSeconds`: the API server never waits longer. */
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

/**
 * The handler's own deadline from the `timeout` query parameter the API server adds to webhook
 * calls (`?timeout=10s`): a little before the API server gives up, so the webhook's own answer
 * (with a clear message) arrives instead of the API server's generic timeout error. The margin is
 * 10% of the timeout, between 100 ms and 1 s, and the deadline at least 1 ms. The timeout is clamped
 * to Kubernetes' 30 s maximum (anyone who reaches the port can send `?timeout=1000h`, which would
 * overflow a timer); a shorter one than `timeoutSeconds` allows is kept, since the API server sends
 * less when its own request has less time left. Absent, zero or not a Go duration: the default.
 */
export function deadlineFromTimeout(timeout: string | undefined, fallbackMs = DEFAULT_WEBHOOK_TIMEOUT_MS): number {
  const total = Math.min(MAX_WEBHOOK_TIMEOUT_MS, parseTimeout(timeout) ?? fallbackMs);
  const margin = Math.min(1_000, Math.max(100, total * 0.1));
  return Math.max(1, Math.floor(total - margin));
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Go duration text (`10s`, `1m30s`, `500ms`) as milliseconds; undefined when absent or malformed. */
export function parseTimeout(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (const match of value.matchAll(pattern)) {
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    consumed += match[0].length;
  }
  if (consumed !== value.length || total <= 0) return undefined;
  return total;
}

export type DeadlineResult<T> = { timedOut: false; value: T } | { timedOut: true; afterMs: number };

/** Work that can be given the deadline, to pass on to the engine (EvaluationOptions.deadline). */
export type DeadlineWork<T> = Promise<T> | ((deadline: EvaluationDeadline) => Promise<T>);

/**
 * Races work against the deadline, in two ways: a timer, for work that waits (loaders, a slot),
 * and the deadline handed to the work, which the engine checks while it computes, since a timer
 * cannot fire while evaluation holds the CPU. Work that stops with EvaluationDeadlineExceeded has
 * timed out; a late result of work that did not stop is ignored, and a late rejection swallowed.
 * `deadline` is the one handed to the work (default: `ms` from now), e.g. one that takes turns.
 * Work whose time is already up (`ms` <= 0) is not started.
 */
export function withDeadline<T>(
  work: DeadlineWork<T>,
  ms: number,
  deadline?: EvaluationDeadline,
): Promise<DeadlineResult<T>> {
  if (ms <= 0 && typeof work === 'function') return Promise.resolve({ timedOut: true, afterMs: 0 });
  return new Promise((resolve, reject) => {
    const timedOut = () => resolve({ timedOut: true, afterMs: ms });
    const timer = setTimeout(timedOut, Math.max(1, ms));
    timer.unref?.();
    const running = typeof work === 'function' ? started(work, deadline ?? deadlineAt(performance.now() + ms)) : work;
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve({ timedOut: false, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (error instanceof EvaluationDeadlineExceeded) timedOut();
        else reject(error);
      },
    );
  });
}

/** Starts the work; a synchronous throw becomes a rejection like any other. */
function started<T>(work: (deadline: EvaluationDeadline) => Promise<T>, deadline: EvaluationDeadline): Promise<T> {
  try {
    return work(deadline);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The answer when the deadline passed: the failure policy decides, as the API server would on a
 * webhook timeout — `Fail` denies with a message saying so, `Ignore` admits.
 */
export function timeoutDecision(failurePolicy: FailurePolicy, afterMs: number): AdmissionDecision {
  if (failurePolicy === 'Ignore') return allow();
  return deny(
    `policy evaluation did not finish within ${Math.round(afterMs)}ms; the request is denied because the webhook's failure policy is Fail`,
  );
}

/**
 * {@link withDeadline} then {@link timeoutDecision}: the whole deadline path for a handler. A review
 * already past its deadline is not evaluated: it is answered at once by the failure policy.
 * `totalMs`: the whole time the review had (for the message), when `ms` is only what is left of it.
 */
export async function decideWithin<T extends { decision: AdmissionDecision }>(
  work: DeadlineWork<T>,
  ms: number,
  failurePolicy: FailurePolicy,
  options: { deadline?: EvaluationDeadline; totalMs?: number } = {},
): Promise<{ decision: AdmissionDecision; outcome?: T; timedOut: boolean }> {
  const result = await withDeadline(work, ms, options.deadline);
  if (result.timedOut)
    return { decision: timeoutDecision(failurePolicy, options.totalMs ?? result.afterMs), timedOut: true };
  return { decision: result.value.decision, outcome: result.value, timedOut: false };
}
