/** Admission attributes for specs: a request for `object` as kube-apiserver would describe it. */
import type { JsonObject } from '@edict/foundation';
import type { AdmissionAttributes, AdmissionOperation } from '../types';

const PLURALS: Record<string, string> = {
  Pod: 'pods',
  Deployment: 'deployments',
  Namespace: 'namespaces',
  ConfigMap: 'configmaps',
  ClusterRole: 'clusterroles',
  Node: 'nodes',
};

export function attributesFor(
  object: JsonObject,
  change: Partial<AdmissionAttributes> & { operation?: AdmissionOperation } = {},
): AdmissionAttributes {
  const apiVersion = String(object.apiVersion ?? 'v1');
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const kind = String(object.kind ?? '');
  const metadata = (object.metadata ?? {}) as { name?: string; namespace?: string };
  const name = metadata.name ?? '';
  const namespace = kind === 'Namespace' ? name : (metadata.namespace ?? '');
  return {
    operation: 'CREATE',
    kind: { group, version, kind },
    resource: { group, version, resource: PLURALS[kind] ?? `${kind.toLowerCase()}s` },
    subresource: '',
    name,
    namespace,
    object,
    oldObject: null,
    ...change,
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}
