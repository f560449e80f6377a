/**
 * Go's `path` package semantics (slash-separated, lexical), which Kyverno uses for `$(...)`
 * reference paths and for `path_canonicalize` (`filepath.Join` on Linux is the same thing);
 * reimplemented so paths resolve exactly as in Kyverno.
 */

export function isAbsolute(path: string): boolean {
  return path.startsWith('/');
}

/** Lexically simplifies a path: drops `.` and empty segments, resolves `..`; `''` becomes `.`. */
export function cleanPath(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(segment);
  }
  const joined = (rooted ? '/' : '') + out.join('/');
  return joined === '' ? '.' : joined;
}

/** Joins from the first non-empty element and cleans the result; all-empty input gives `''`. */
export function joinPath(...elements: string[]): string {
  const first = elements.findIndex((element) => element !== '');
  return first < 0 ? '' : cleanPath(elements.slice(first).join('/'));
}
