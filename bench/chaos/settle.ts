/** Polling until a figure settles or a condition holds, bounded in time. */

/**
 * Reads `sample` every `intervalMs` until `done` holds or its value stayed the same for `quietMs`,
 * at most `timeoutMs`; resolves with the last value and the ms waited.
 */
export async function settle<T>(
  sample: () => Promise<T>,
  done: (value: T) => boolean,
  { quietMs, timeoutMs, intervalMs = 500 }: { quietMs: number; timeoutMs: number; intervalMs?: number },
): Promise<{ value: T; waitedMs: number }> {
  const started = performance.now();
  let value = await sample();
  let lastChange = started;
  while (!done(value) && performance.now() - lastChange < quietMs && performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const next = await sample();
    if (JSON.stringify(next) !== JSON.stringify(value)) lastChange = performance.now();
    value = next;
  }
  return { value, waitedMs: performance.now() - started };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 100 ms for `timeoutMs`; resolves with the ms it took, rejects when out of time. */
export async function timeUntil(done: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not done after ${timeoutMs} ms`);
    await sleep(100);
  }
  return performance.now() - started;
}
