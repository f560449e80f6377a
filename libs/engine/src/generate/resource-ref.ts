import type { KubeObject } from '@edict/foundation';
import type { ResourceRef } from './types';

/**
 * A `cloneList.kinds` entry as Kyverno reads it: `Secret` (any version), `v1/Secret`,
 * `apps/v1/Deployment`, or `apps/*\/Deployment` (any version of the group, read as no apiVersion).
 */
export function parseKindEntry(entry: string): { apiVersion: string; kind: string } {
  const parts = entry.split('/');
  if (parts.length === 1) return { apiVersion: '', kind: entry };
  if (parts.length === 2) return { apiVersion: parts[0], kind: parts[1] };
  if (parts[1] === '*') return { apiVersion: '', kind: parts[2] };
  return { apiVersion: `${parts[0]}/${parts[1]}`, kind: parts[2] };
}

/** `v1/Secret default/regcred`, or `v1/Namespace prod` for a cluster-scoped object. */
export function formatRef(ref: ResourceRef): string {
  const type = ref.apiVersion ? `${ref.apiVersion}/${ref.kind}` : ref.kind;
  return `${type} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

export function refOf(object: KubeObject): ResourceRef {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
  };
}

/** Whether `object` is the one `ref` names (apiVersion only compared when `ref` has one). */
export function isObjectAt(object: KubeObject, ref: ResourceRef): boolean {
  const own = refOf(object);
  return (
    own.kind === ref.kind &&
    own.name === ref.name &&
    own.namespace === ref.namespace &&
    (ref.apiVersion === '' || own.apiVersion === ref.apiVersion)
  );
}
