/** Retries an attempt until it succeeds or the time is up; at least one attempt always runs. */
export async function pollUntil(
  timeoutMs: number,
  intervalMs: number,
  attempt: () => Promise<boolean>,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await attempt()) return true;
    if (Date.now() + intervalMs > deadline) return false;
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
