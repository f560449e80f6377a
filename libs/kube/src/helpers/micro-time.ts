/**
 * kube `MicroTime` (Lease acquireTime/renewTime, Event eventTime): RFC 3339 with exactly six
 * fractional digits. `Date.toISOString()` gives three, which a real API server rejects with 400.
 */
export function microTime(date: Date = new Date()): string {
  const time = date.getTime();
  if (Number.isNaN(time)) throw new RangeError('microTime: invalid date');
  return `${date.toISOString().slice(0, -1)}000Z`;
}

/**
 * Parses a MicroTime or Time string (or a Date, as client-node's typed APIs return them);
 * `undefined` for anything else.
 */
export function parseKubeTime(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value !== 'string') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  // Date parses at most millisecond precision; trim the rest.
  const date = new Date(value.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
