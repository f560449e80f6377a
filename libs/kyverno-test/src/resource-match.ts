import type { Policy } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { ExpectedResult } from './types';

/** True when a results[] resource entry (`name` or `namespace/name`) names this object. */
export function namesResource(entry: string, resource: KubeObject, deprecatedNamespace?: string): boolean {
  const { name = '', namespace = '' } = resource.metadata;
  if (deprecatedNamespace !== undefined && deprecatedNamespace !== namespace) return false;
  return entry === name || entry === `${namespace}/${name}`;
}

/**
 * The objects a results[] entry's resource name refers to: those carrying the name, narrowed to the
 * entry's kind when an object of that kind carries it (so a Pod and a Deployment may share a name).
 */
export function resolveNamedResources(
  entry: ExpectedResult,
  name: string,
  candidates: readonly KubeObject[],
): KubeObject[] {
  const named = candidates.filter((resource) => namesResource(name, resource, entry.namespace));
  const ofKind = named.filter((resource) => resource.kind === entry.kind);
  return ofKind.length > 0 ? ofKind : named;
}

/** A results[] policy is the policy name, or `namespace/name` for a namespaced Policy. */
export function namesPolicy(entry: string, policy: Policy): boolean {
  const { name, namespace } = policy.metadata;
  return entry === name || (policy.kind === 'Policy' && entry === `${namespace ?? ''}/${name}`);
}

/** A rule response answers for results[] rule `rule` when named `rule`, `autogen-rule` or `autogen-cronjob-rule`. */
export function namesRule(rule: string, responseRule: string): boolean {
  if (rule === '') return true;
  return responseRule === rule || responseRule === `autogen-${rule}` || responseRule === `autogen-cronjob-${rule}`;
}

/** Identity of an object within a test. */
export function objectKey(resource: Pick<KubeObject, 'kind' | 'metadata'>): string {
  return `${resource.kind}/${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

/** Kyverno's RESOURCE column: `kind/name`, or `namespace/kind/name` when the entry names a namespace (empty parts left out). */
export function displayResource(kind: string, name: string, namespace?: string): string {
  const slash = name.indexOf('/');
  const [ns, short] = slash >= 0 ? [name.slice(0, slash), name.slice(slash + 1)] : [namespace ?? '', name];
  const parts = [ns, kind, short].filter((part) => part !== '');
  return parts.join('/');
}
