/** Small text helpers mirroring the upstream pod-security-admission wording. */
import { goQuote, sortGoOrder } from '@edict/foundation';

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

export function joinQuote(items: readonly string[]): string {
  return items.map(goQuote).join(', ');
}

/** Sorted, de-duplicated list: what `sets.NewString(...).List()` returns (in Go's byte order). */
export function sortedSet(items: Iterable<string>): string[] {
  return sortGoOrder([...new Set(items)]);
}
