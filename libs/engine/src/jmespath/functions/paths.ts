/** Go `filepath.Join(p)` on Linux: "" stays "", otherwise `filepath.Clean`. */
export function goPathJoin(path: string): string {
  return path === '' ? '' : goPathClean(path);
}

/** Go `path.Clean`: collapse slashes, drop ".", resolve "..", never climb above the root. */
export function goPathClean(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}
