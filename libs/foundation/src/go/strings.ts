/**
 * Go orders strings by their UTF-8 bytes (`<`, `strings.Compare`, `sort.Strings`, encoding/json's map
 * keys, fmt's sorted maps), which is code point order. JavaScript's `<` and default `sort()` compare
 * UTF-16 units instead: the two disagree only when a string holds an astral character (a surrogate
 * pair, 0xD800-0xDFFF) where another holds a character from 0xE000 to 0xFFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Sorts in place in Go's order; the native sort when no string has a surrogate (same order, faster). */
export function sortGoOrder(items: string[]): string[] {
  return items.some((item) => SURROGATE.test(item)) ? items.sort(compareCodePoints) : items.sort();
}

/** Go's `%q` of a string, for the printable text policies and resources hold (JSON escaping agrees). */
export function goQuote(text: string): string {
  return JSON.stringify(text);
}
