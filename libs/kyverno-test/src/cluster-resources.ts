import { resolve } from 'node:path';
import { isObject, type KubeObject } from '@edict/foundation';
import { Fields } from './io/fields';
import { readYamlFile } from './io/files';
import { toObjects } from './resources';

export interface ClusterState {
  objects: KubeObject[];
  /** plural resource name -> group and kind, learnt from CRDs. */
  crdPlurals: Record<string, { group: string; kind: string }>;
}

/**
 * Reads `clusterResources` files: `cli.kyverno.io/v1alpha1` ClusterResource documents (inline
 * `spec.resources`, and `spec.crds` files relative to the test) or plain Kubernetes objects.
 */
export function loadClusterResources(paths: readonly string[], testDir: string): ClusterState {
  const state: ClusterState = { objects: [], crdPlurals: {} };
  for (const path of paths) {
    const file = resolve(testDir, path);
    readYamlFile(file).forEach(({ value: document, where }) => {
      if (isObject(document) && document.kind === 'ClusterResource') {
        const spec = Fields.of(document, file, where).object('spec');
        for (const crdPath of spec?.stringList('crds') ?? []) {
          const crdFile = resolve(testDir, crdPath);
          for (const crd of readYamlFile(crdFile)) addObjects(state, toObjects(crd.value, crdFile, crd.where));
        }
        const resources = spec?.raw('resources');
        if (Array.isArray(resources)) {
          resources.forEach((resource, resourceIndex) =>
            addObjects(state, toObjects(resource, file, `${where}.spec.resources[${resourceIndex}]`)),
          );
        }
        return;
      }
      addObjects(state, toObjects(document, file, where));
    });
  }
  return state;
}

function addObjects(state: ClusterState, objects: KubeObject[]): void {
  for (const object of objects) {
    state.objects.push(object);
    if (object.kind === 'CustomResourceDefinition') learnCrd(state, object);
  }
}

function learnCrd(state: ClusterState, crd: KubeObject): void {
  const spec = crd.spec;
  if (!isObject(spec) || !isObject(spec.names)) return;
  const { plural, kind } = spec.names;
  if (typeof plural === 'string' && typeof kind === 'string') {
    state.crdPlurals[plural] = { group: typeof spec.group === 'string' ? spec.group : '', kind };
  }
}
