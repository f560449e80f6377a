import { BoundedCache } from '../cache/bounded-cache';
import { compileWildcard, wildcardMatch } from '../values';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * One entry of `resources.kinds`, split the way Kyverno splits it. Group and version are `*` when
 * the entry does not name them; `subresource` is absent when the entry names none.
 */
export interface KindSelector {
  group: string;
  version: string;
  kind: string;
  subresource?: string;
}

// A segment that is a Kubernetes version (v1, v2beta1, ...) or `*`; anything else in that position is a
// group or a kind.
const VERSION = /^(v\d+((alpha|beta)\d+)?|\*)$/;
const cache = new BoundedCache<KindSelector>(5_000);

/**
 * Parses `Kind`, `Kind/sub`, `Kind.sub`, `version/Kind`, `version/Kind/sub`, `group/version/Kind`,
 * `group/version/Kind/sub`, `*`, `*\/*` (everything, subresources included) and `*\/sub`. Only the
 * last segment may carry a `.sub` suffix, as groups contain dots. More than four segments select
 * nothing (the kind comes back empty).
 */
export function parseKind(selector: string): KindSelector {
  return cache.getOrCreate(selector, split);
}

function split(selector: string): KindSelector {
  const slashParts = selector.split('/');
  const last = slashParts.pop() as string;
  const parts = [...slashParts, ...last.split('.')];
  const of = (group: string, version: string, kind: string, subresource = ''): KindSelector =>
    subresource === '' ? { group, version, kind } : { group, version, kind, subresource };
  switch (parts.length) {
    case 1:
      return of('*', '*', parts[0]);
    case 2: {
      const [first, second] = parts;
      if (first === '*' && second === '*') return of('*', '*', '*', '*');
      // `*/scale`: a lower-case second segment after `*` is a subresource of any kind.
      if (first === '*' && second.toLowerCase() === second) return of('*', '*', '*', second);
      if (VERSION.test(first)) return of('*', first, second);
      return of('*', '*', first, second);
    }
    case 3:
      if (VERSION.test(parts[0])) return of('*', parts[0], parts[1], parts[2]);
      return of(parts[0], parts[1], parts[2]);
    case 4:
      return of(parts[0], parts[1], parts[2], parts[3]);
    default:
      return of('', '', '');
  }
}

/**
 * Whether any of `kinds` selects the request's kind. A selector without a subresource selects the
 * kind's subresources too (`Pod` covers `Pod/exec`); one with a subresource selects only that
 * subresource. Kind names compare case-sensitively. With `allowEphemeralContainers`, any selector
 * of core `v1/Pod` also covers the `ephemeralcontainers` subresource (Kyverno keeps this for rules so
 * that Pod policies keep guarding debug containers).
 */
export function kindMatches(
  kinds: readonly string[],
  gvk: GroupVersionKind,
  subresource: string,
  allowEphemeralContainers: boolean,
): boolean {
  for (const entry of kinds) {
    if (kindSelectorMatches(parseKind(entry), gvk, subresource, allowEphemeralContainers)) return true;
  }
  return false;
}

/** One parsed entry of `kinds` against the request's kind (see `kindMatches`). */
export function kindSelectorMatches(
  selector: KindSelector,
  gvk: GroupVersionKind,
  subresource: string,
  allowEphemeralContainers: boolean,
): boolean {
  if (
    !wildcardMatch(selector.group, gvk.group) ||
    !wildcardMatch(selector.version, gvk.version) ||
    !wildcardMatch(selector.kind, gvk.kind)
  ) {
    return false;
  }
  if (selector.subresource === undefined || wildcardMatch(selector.subresource, subresource)) return true;
  return allowEphemeralContainers && isCorePod(gvk) && subresource === 'ephemeralcontainers';
}

/** `kindSelectorMatches` for one selector, its wildcards prepared once (compiled policies). */
export type KindMatcher = (gvk: GroupVersionKind, subresource: string, allowEphemeralContainers: boolean) => boolean;

export function compileKindSelector(selector: KindSelector): KindMatcher {
  const group = compileWildcard(selector.group);
  const version = compileWildcard(selector.version);
  const kind = compileWildcard(selector.kind);
  const sub = selector.subresource === undefined ? undefined : compileWildcard(selector.subresource);
  return (gvk, subresource, allowEphemeralContainers) => {
    if (!group(gvk.group) || !version(gvk.version) || !kind(gvk.kind)) return false;
    if (!sub || sub(subresource)) return true;
    return allowEphemeralContainers && isCorePod(gvk) && subresource === 'ephemeralcontainers';
  };
}

function isCorePod(gvk: GroupVersionKind): boolean {
  return gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Pod';
}
