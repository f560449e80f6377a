import { type JsonObject, type JsonValue, type KubeObject, pluralOfKind } from '@edict/foundation';
import { groupVersion } from './request-builder';

/*
 * Answers Kubernetes API GET paths (`/api/v1/...`, `/apis/<group>/<version>/...`) from a fixed set of
 * objects, the way Kyverno's CLI serves apiCall entries from its fake cluster when a test gives
 * clusterResources. Lists come back as `<Kind>List` objects; a missing object is `undefined`.
 */
export class FakeApiServer {
  constructor(
    private readonly objects: readonly KubeObject[],
    private readonly crdPlurals: Record<string, { group: string; kind: string }> = {},
  ) {}

  get(urlPath: string): JsonValue | undefined {
    const parsed = parseApiPath(urlPath);
    if (!parsed) return undefined;
    const kind = this.kindOf(parsed.group, parsed.plural);
    const matching = this.objects.filter(
      (object) =>
        groupVersion(object.apiVersion).group === parsed.group &&
        kind !== undefined &&
        object.kind === kind &&
        (parsed.namespace === undefined || object.metadata.namespace === parsed.namespace) &&
        matchesSelector(object, parsed.labelSelector),
    );
    if (parsed.name !== undefined) return matching.find((object) => object.metadata.name === parsed.name);
    const apiVersion = parsed.group ? `${parsed.group}/${parsed.version}` : parsed.version;
    return { apiVersion, kind: `${kind ?? ''}List`, metadata: { resourceVersion: '' }, items: matching } as JsonObject;
  }

  /** Resolves a plural resource name (any case) to a kind known from CRDs or from the objects. */
  private kindOf(group: string, plural: string): string | undefined {
    const lower = plural.toLowerCase();
    const crd = this.crdPlurals[lower];
    if (crd && crd.group === group) return crd.kind;
    for (const object of this.objects) {
      if (groupVersion(object.apiVersion).group === group && pluralOfKind(object.kind) === lower) return object.kind;
    }
    return undefined;
  }
}

export interface ApiPath {
  group: string;
  version: string;
  namespace?: string;
  plural: string;
  name?: string;
  labelSelector?: string;
}

export function parseApiPath(urlPath: string): ApiPath | undefined {
  const [path, query = ''] = urlPath.split('?', 2);
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    [group, version, rest] = ['', segments[1], segments.slice(2)];
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const labelSelector = new URLSearchParams(query).get('labelSelector') ?? undefined;
  return { group, version, namespace, plural: rest[0], name: rest[1], labelSelector };
}

/** Equality-based label selectors: `a=b`, `a==b`, `a!=b`, `a`, `!a`, comma-separated. */
function matchesSelector(object: KubeObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = object.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const clause = term.trim();
    if (clause === '') return true;
    const notEqual = clause.indexOf('!=');
    if (notEqual >= 0) return labels[clause.slice(0, notEqual).trim()] !== clause.slice(notEqual + 2).trim();
    const equal = clause.indexOf('=');
    if (equal >= 0)
      return (
        labels[clause.slice(0, equal).trim()] ===
        clause
          .slice(equal + 1)
          .replace(/^=/, '')
          .trim()
      );
    if (clause.startsWith('!')) return !(clause.slice(1) in labels);
    return clause in labels;
  });
}
