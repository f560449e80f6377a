/**
 * What validate.cel rules read from the cluster (the engine's ResourceLoader): parameter objects
 * straight from the API server (each read bounded in time and size), a kind's scope from
 * discovery, and the request's Namespace from the namespace informer.
 */
import {
  matchesLabelSelector,
  type JsonObject,
  type KubeObject,
  type LabelSelector,
  type ResourceLoader,
} from '@edict/engine';
import { isNotFound, KubeApiError, type KubeObject as StoredObject, type KubeResources } from '@edict/kube';

/** Longest one read may take; the review's own deadline still bounds the whole evaluation. */
export const RESOURCE_READ_TIMEOUT_MS = 2_000;
/** Largest answer accepted for one read. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Parameter objects one selector may bring (each is evaluated against the rule). */
export const MAX_LISTED_OBJECTS = 100;

/** Namespaces by name (an informer in the admission controller). */
export interface NamespaceSource {
  namespaceObject(name: string): Promise<StoredObject | undefined>;
}

export class ClusterResourceLoader implements ResourceLoader {
  constructor(
    private readonly resources: KubeResources,
    private readonly namespaces: NamespaceSource,
  ) {}

  async get(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    if (apiVersion === 'v1' && kind === 'Namespace')
      return this.namespaces.namespaceObject(name) as Promise<KubeObject | undefined>;
    const path = await this.resources.path({ apiVersion, kind, namespace, name });
    try {
      return await this.resources.http.json<KubeObject>({
        path,
        totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Lists and filters here, so a selector needs no translation to the query syntax. */
  async list(apiVersion: string, kind: string, namespace?: string, labelSelector?: JsonObject): Promise<KubeObject[]> {
    const page = await this.resources.listPage<KubeObject>(
      { apiVersion, kind, namespace },
      { limit: 500, timeoutMs: RESOURCE_READ_TIMEOUT_MS },
    );
    const selected = page.items.filter((object) =>
      matchesLabelSelector((labelSelector ?? {}) as LabelSelector, object.metadata?.labels),
    );
    if (page.continue || selected.length > MAX_LISTED_OBJECTS) {
      throw new Error(`more than ${MAX_LISTED_OBJECTS} ${kind} objects match; narrow the selector`);
    }
    return selected;
  }

  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
    try {
      return (await this.resources.resource(apiVersion, kind)).namespaced;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }
}
