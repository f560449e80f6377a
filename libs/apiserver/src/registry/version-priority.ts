/**
 * Kubernetes' version ordering (GA > beta > alpha, higher numbers first, other names last
 * alphabetically), used to pick a group's preferred version and to order versions in discovery.
 */
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(version: string): [number, number, number] {
  const match = KUBE_VERSION.exec(version);
  if (!match) return [0, 0, 0];
  const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
  return [stability, Number(match[1]), Number(match[3] ?? 0)];
}

/** Negative when `a` is preferred over `b`. */
export function compareKubeVersions(a: string, b: string): number {
  const [sa, ma, na] = rank(a);
  const [sb, mb, nb] = rank(b);
  if (sa === 0 && sb === 0) return a.localeCompare(b);
  if (sa !== sb) return sa === 3 ? -1 : sb === 3 ? 1 : sa === 0 ? 1 : sb === 0 ? -1 : sb - sa;
  if (ma !== mb) return mb - ma;
  return nb - na;
}
