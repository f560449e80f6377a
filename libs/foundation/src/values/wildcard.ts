/**
 * Kyverno's wildcards: `*` matches any run of characters (including `/`, unlike path globs) and
 * `?` matches exactly one. Matching is linear in the value for a given pattern, whatever the
 * pattern (`*a*a*a*...b` included): the pattern is split at its stars into segments, and each
 * segment is found at its leftmost place after the previous one, which is all a glob needs.
 * Split patterns are cached because the same few (kinds, names, images) meet every resource.
 */
interface Glob {
  /** The segments between stars; the first is anchored at the start, the last at the end. */
  readonly segments: readonly string[];
  readonly questionMarks: boolean;
}

const globs = new Map<string, Glob>();
const MAX_CACHED = 10_000;

export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** `wildcardMatch(pattern, value)` with the pattern prepared once, for patterns a policy holds. */
export function compileWildcard(pattern: string): (value: string) => boolean {
  if (!hasWildcard(pattern)) return (value) => value === pattern;
  if (pattern === '*') return () => true;
  const glob: Glob = { segments: pattern.split('*'), questionMarks: pattern.includes('?') };
  return (value) => matchGlob(glob, value);
}

export function wildcardMatch(pattern: string, value: string): boolean {
  if (!hasWildcard(pattern)) return pattern === value;
  if (pattern === '*') return true;
  let glob = globs.get(pattern);
  if (!glob) {
    glob = { segments: pattern.split('*'), questionMarks: pattern.includes('?') };
    if (globs.size >= MAX_CACHED) globs.clear();
    globs.set(pattern, glob);
  }
  return matchGlob(glob, value);
}

function matchGlob({ segments, questionMarks }: Glob, value: string): boolean {
  const first = segments[0]!;
  if (segments.length === 1) return first.length === value.length && segmentAt(first, value, 0, questionMarks);
  const last = segments[segments.length - 1]!;
  const tail = value.length - last.length;
  if (tail < first.length) return false;
  if (!segmentAt(first, value, 0, questionMarks) || !segmentAt(last, value, tail, questionMarks)) return false;
  let position = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (segment === '') continue;
    const found = questionMarks ? findSegment(segment, value, position, tail) : value.indexOf(segment, position);
    if (found < 0 || found + segment.length > tail) return false;
    position = found + segment.length;
  }
  return true;
}

/** Whether `segment` (`?` = any one character) occurs in `value` at `offset`. */
function segmentAt(segment: string, value: string, offset: number, questionMarks: boolean): boolean {
  if (!questionMarks) return value.startsWith(segment, offset);
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c !== 63 /* ? */ && c !== value.charCodeAt(offset + i)) return false;
  }
  return true;
}

/** The leftmost place at or after `from` where `segment` ends by `end`, or -1. */
function findSegment(segment: string, value: string, from: number, end: number): number {
  for (let at = from; at + segment.length <= end; at++) if (segmentAt(segment, value, at, true)) return at;
  return -1;
}
