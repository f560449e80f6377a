/** Small text helpers mirroring the upstream pod-security-admission wording. */

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** Go's `%q` for ordinary strings (JSON escaping agrees with it for printable text). */
export function goQuote(value: string): string {
  return JSON.stringify(value);
}

export function joinQuote(items: readonly string[]): string {
  return items.map(goQuote).join(', ');
}

/** Sorted, de-duplicated list: what `sets.NewString(...).List()` returns (byte order, like Go). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
