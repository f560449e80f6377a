/**
 * The existing objects a MutatingPolicy's match resources name, as Kyverno's background controller
 * lists them (collectGVK): per resource rule, each concrete group/version/resource (a wildcard names
 * no type to list; a subresource's parent is listed and the subresource kept for the write),
 * filtered by resourceNames and objectSelector, in the namespaces the namespaceSelector selects, and
 * for a NamespacedMutatingPolicy only in its own namespace. Bounded: listing stops past `limit`.
 */
import type { CompiledMutatingPolicy, MatchResources } from '@edict/cel-policies';
import { errorMessage, isObject, matchesLabelSelector, type KubeObject, type LabelSelector } from '@edict/foundation';
import type { ClusterObjects } from '../update-requests/cluster-objects';

/** The API resource serving a plural in a group version (discovery). */
export interface ServedResource {
  readonly kind: string;
  readonly namespaced: boolean;
}

/** The resource `plural` of `apiVersion`; undefined when the API server does not serve it. */
export type ResourceLookup = (apiVersion: string, plural: string) => Promise<ServedResource | undefined>;

/** One listed object and the resource it is served as (group/version/plural, subresource). */
export interface RuleObject {
  readonly object: KubeObject;
  readonly resource: { group: string; version: string; resource: string };
  readonly subresource: string;
}

export interface RuleObjectListing {
  readonly objects: RuleObject[];
  /** `<apiVersion>, Kind=<kind>` and why, for each type that could not be listed. */
  readonly failures: Array<{ type: string; error: string }>;
}

export async function resourceRuleObjects(
  compiled: Pick<CompiledMutatingPolicy, 'namespace'>,
  constraints: MatchResources,
  cluster: ClusterObjects,
  resourceNamed: ResourceLookup,
  limit: number,
): Promise<RuleObjectListing> {
  const namespaces = await listedNamespaces(compiled, constraints, cluster);
  const objects: RuleObject[] = [];
  const failures: RuleObjectListing['failures'] = [];
  const seen = new Set<string>();
  for (const rule of constraints.resourceRules ?? []) {
    for (const group of rule.apiGroups ?? []) {
      for (const version of rule.apiVersions ?? []) {
        for (const resource of rule.resources ?? []) {
          const [plural = '', subresource = ''] = resource.split('/', 2);
          if ([group, version, plural].some((part) => part.includes('*'))) continue;
          const apiVersion = group === '' ? version : `${group}/${version}`;
          const served = await resourceNamed(apiVersion, plural);
          if (!served) continue;
          const route = `${apiVersion}/${plural}/${subresource}/${(rule.resourceNames ?? []).join(',')}`;
          if (seen.has(route)) continue;
          seen.add(route);
          const scopes = !served.namespaced ? [undefined] : namespaces;
          for (const namespace of scopes) {
            try {
              for await (const page of cluster.list({
                apiVersion,
                kind: served.kind,
                ...(namespace ? { namespace } : {}),
              })) {
                for (const object of page) {
                  if (rule.resourceNames?.length && !rule.resourceNames.includes(object.metadata?.name ?? '')) continue;
                  if (!matchesObjectSelector(constraints.objectSelector, object)) continue;
                  objects.push({ object, resource: { group, version, resource: plural }, subresource });
                  if (objects.length > limit) return { objects, failures };
                }
              }
            } catch (error) {
              failures.push({ type: `${apiVersion}, Kind=${served.kind}`, error: errorMessage(error) });
            }
          }
        }
      }
    }
  }
  return { objects, failures };
}

/**
 * Where namespaced objects are listed: a NamespacedMutatingPolicy's own namespace; the namespaces a
 * namespaceSelector selects; else every namespace (`[undefined]`).
 */
async function listedNamespaces(
  compiled: Pick<CompiledMutatingPolicy, 'namespace'>,
  constraints: MatchResources,
  cluster: ClusterObjects,
): Promise<Array<string | undefined>> {
  if (compiled.namespace !== undefined) return [compiled.namespace];
  const selector = constraints.namespaceSelector as LabelSelector | undefined;
  if (!isObject(selector)) return [undefined];
  const names: string[] = [];
  for await (const page of cluster.list({ apiVersion: 'v1', kind: 'Namespace' })) {
    for (const namespace of page) {
      if (matchesLabelSelector(selector, namespace.metadata?.labels)) names.push(namespace.metadata?.name ?? '');
    }
  }
  return names;
}

function matchesObjectSelector(selector: unknown, object: KubeObject): boolean {
  return !isObject(selector) || matchesLabelSelector(selector as LabelSelector, object.metadata?.labels);
}
