/**
 * Kyverno's wildcards: `*` matches any run of characters (including `/`, unlike path globs) and
 * `?` matches exactly one. Compiled patterns are cached because the same few patterns (kinds,
 * names, images) are matched against every resource.
 */
const compiled = new Map<string, RegExp>();
const MAX_CACHED = 10_000;

export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

export function wildcardMatch(pattern: string, value: string): boolean {
  if (!hasWildcard(pattern)) return pattern === value;
  if (pattern === '*') return true;
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    regex = new RegExp(`^${source}$`, 's');
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex.test(value);
}
