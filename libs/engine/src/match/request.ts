import type { KubeObject, GroupVersionKind } from '@edict/foundation';
import type { Operation, RequestUser } from '../core/types';

/**
 * What rule matching looks at for one request. For DELETE the caller passes the old object as
 * `resource`, as Kyverno matches deletes against the object being removed.
 */
export interface MatchRequest {
  resource: KubeObject;
  operation: Operation;
  /** Who is asking. Absent (or with every field unset) means "unknown", as in the CLI without a user file. */
  user?: RequestUser;
  /** Labels of the resource's namespace, for `namespaceSelector`. */
  namespaceLabels?: Record<string, string>;
  /** Subresource of the request (`status`, `exec`, `scale`, `ephemeralcontainers`...), empty for the main resource. */
  subresource?: string;
  /**
   * The kind the request is about, for `kinds`. For subresource requests this is the parent
   * resource's kind (Kyverno resolves `pods/exec` to `v1/Pod` + subresource `exec`), not the kind
   * of the object in the body. Defaults to the resource's own apiVersion/kind.
   */
  requestKind?: GroupVersionKind;
}

/** Group/version/kind of an object from its `apiVersion` (`apps/v1` or core `v1`) and `kind`. */
export function gvkOf(resource: KubeObject): GroupVersionKind {
  const apiVersion = typeof resource.apiVersion === 'string' ? resource.apiVersion : '';
  const kind = typeof resource.kind === 'string' ? resource.kind : '';
  const slash = apiVersion.indexOf('/');
  if (slash === -1) return { group: '', version: apiVersion, kind };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** The resource's name, falling back to `generateName` for objects the API server has not named yet. */
export function resourceNameOf(resource: KubeObject): string {
  const metadata = resource.metadata ?? {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  if (name !== '') return name;
  return typeof metadata.generateName === 'string' ? metadata.generateName : '';
}

export function resourceNamespaceOf(resource: KubeObject): string {
  const namespace = resource.metadata?.namespace;
  return typeof namespace === 'string' ? namespace : '';
}

export function resourceKindOf(resource: KubeObject): string {
  return typeof resource.kind === 'string' ? resource.kind : '';
}

/**
 * metadata.labels / metadata.annotations as a string map. A map holding anything but strings reads
 * as none, as unstructured's GetLabels/GetAnnotations give Kyverno.
 */
export function stringMapAt(resource: KubeObject, field: 'labels' | 'annotations'): Record<string, string> | undefined {
  const value = resource.metadata?.[field];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const key in value) if (typeof value[key] !== 'string') return undefined;
  return value as Record<string, string>;
}
