import { isObject, type KubeObject, pluralOfKind } from '@edict/foundation';
import { groupVersion } from './request-builder';
import type { LoadedTest } from './types';

/**
 * The group, version and plural resource of an object, as Kyverno's CLI maps a kind offline: the
 * plural a CRD of the test declares for it, else the name Kubernetes' code generators give the kind.
 */
export function resourceOf(
  object: Pick<KubeObject, 'apiVersion' | 'kind'>,
  crdPlurals: LoadedTest['crdPlurals'],
): { group: string; version: string; resource: string } {
  const { group, version } = groupVersion(object.apiVersion ?? '');
  const declared = Object.entries(crdPlurals).find(
    ([, crd]) => crd.kind === object.kind && (crd.group === group || crd.group === ''),
  );
  return { group, version, resource: declared?.[0] ?? pluralOfKind(object.kind ?? '') };
}

/**
 * The Namespace object CEL policies see as `namespaceObject` in the CLI, as Kyverno's CLI resolves
 * it from the values file: a `namespaces` entry as given, a `namespaceSelector` entry as a Namespace
 * with its name and labels; else, when the test gives clusterResources, the Namespace of its fake
 * cluster; else none (null).
 */
export function offlineNamespaceObject(test: LoadedTest, namespace: string | undefined): KubeObject | null {
  if (!namespace) return null;
  const full = test.values.namespaces[namespace];
  if (full) return full;
  const labels = test.values.namespaceLabels[namespace];
  if (labels) return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } };
  if (test.definition.clusterResources.length === 0) return null;
  const inCluster = [...test.clusterResources, ...test.resources].find(
    (object) => object.kind === 'Namespace' && object.apiVersion === 'v1' && object.metadata.name === namespace,
  );
  return inCluster ?? null;
}

/** The object a JSON payload stands for in results and messages (its `metadata.name` when it has one). */
export function payloadObject(payload: unknown, file: string): KubeObject {
  const metadata = isObject(payload) && isObject(payload.metadata) ? payload.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : file;
  const kind = isObject(payload) && typeof payload.kind === 'string' ? payload.kind : '';
  const apiVersion = isObject(payload) && typeof payload.apiVersion === 'string' ? payload.apiVersion : '';
  return { apiVersion, kind, metadata: { name } };
}
