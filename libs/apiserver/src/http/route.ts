/** Splitting a REST path into group, version, namespace, resource, name and subresource. */
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/resource-type';

export interface ResourceRoute {
  readonly type: ResourceType;
  /** Set for namespaced paths (`/namespaces/<ns>/<plural>`). */
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

export interface UnknownRoute {
  /** The group version exists but not this resource, or the path is malformed. */
  readonly unknown: true;
}

/**
 * Resolves `/api/v1/...` and `/apis/<group>/<version>/...` resource paths; `undefined` for paths
 * that are not resource paths at all.
 */
export function resolveResourcePath(
  registry: ResourceRegistry,
  path: string,
): ResourceRoute | UnknownRoute | undefined {
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const type = registry.find(group, version, rest[2]!);
    if (type?.namespaced) {
      if (rest.length > 5) return { unknown: true };
      return { type, namespace: rest[1], name: rest[3], subresource: rest[4] };
    }
  }
  const type = registry.find(group, version, rest[0]!);
  if (!type || rest.length > 3) return { unknown: true };
  return { type, name: rest[1], subresource: rest[2] };
}
