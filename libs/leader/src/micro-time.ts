/**
 * Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. A real API server rejects a
 * Lease whose `acquireTime`/`renewTime` carry three (what `Date#toISOString` writes) with a 400.
 */
export function formatMicroTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.678Z
  return `${iso.slice(0, -1)}000Z`;
}

/** Reads a MicroTime (or any RFC 3339 time, or a Date) back to epoch milliseconds; undefined if absent or bad. */
export function parseMicroTime(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
