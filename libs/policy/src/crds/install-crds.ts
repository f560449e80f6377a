/**
 * Installing Edict's CRDs into a store that writes directly (the in-memory API server's typed
 * access): the local launcher does it before anything watches them, tests do it per cluster.
 */
import type { JsonObject } from '@edict/foundation';
import { readCrdManifests } from './crd-manifests';

/** What installing needs: read one object, create one (InMemoryApiServer fits). */
export interface CrdStore {
  get(apiVersion: string, kind: string, name: string): JsonObject | undefined;
  create(object: JsonObject): unknown;
}

/**
 * Creates every CRD of `directory` (default: charts/edict/files/crds, found from the working directory)
 * that the store lacks; existing ones are left as they are. Returns the names it created.
 */
export function installPolicyCrds(store: CrdStore, directory?: string): string[] {
  const created: string[] = [];
  for (const crd of readCrdManifests(directory)) {
    const name = (crd.metadata as JsonObject).name as string;
    if (store.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name)) continue;
    store.create(crd);
    created.push(name);
  }
  return created;
}
