/**
 * What rules read from the cluster (the engine's ResourceLoader): parameter objects, clone sources
 * and mutate-existing targets straight from the API server (each read bounded in time and size), a
 * kind's scope from discovery, and the request's Namespace from the namespace informer.
 */
import { type ResourceLoader } from '@edict/engine';
import {
  hasWildcard,
  matchesLabelSelector,
  wildcardMatch,
  type JsonObject,
  type KubeObject,
  type LabelSelector,
} from '@edict/foundation';
import { isNotFound, KubeApiError, type KubeResources } from '@edict/kube';

/** Longest one read may take; the review's own deadline still bounds the whole evaluation. */
export const RESOURCE_READ_TIMEOUT_MS = 2_000;
/** Largest answer accepted for one read. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Parameter objects one selector may bring (each is evaluated against the rule). */
export const MAX_LISTED_OBJECTS = 100;

/** Namespaces by name (an informer in the admission controller). */
export interface NamespaceSource {
  namespaceObject(name: string): Promise<KubeObject | undefined>;
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
    apiVersion = await this.servedApiVersion(apiVersion, kind);
    if (apiVersion === 'v1' && kind === 'Namespace')
      return this.namespaces.namespaceObject(name) as Promise<KubeObject | undefined>;
    const path = await this.resources.path({ apiVersion, kind, namespace, name });
    try {
      return await this.read<KubeObject>(path);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Lists and filters here, so a selector needs no translation to the query syntax. */
  async list(apiVersion: string, kind: string, namespace?: string, labelSelector?: JsonObject): Promise<KubeObject[]> {
    const page = await this.resources.listPage<KubeObject>(
      { apiVersion: await this.servedApiVersion(apiVersion, kind), kind, namespace },
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
      return (await this.resources.resource(await this.servedApiVersion(apiVersion, kind), kind)).namespaced;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /**
   * A mutate-existing target may write its apiVersion with wildcards (`*`, `apps/*`). As Kyverno reads
   * it, the part before `/` is the group (none: the core group) and the rest the version; the kind is
   * looked up in the served group versions that match, each group's preferred version first.
   */
  private async servedApiVersion(apiVersion: string, kind: string): Promise<string> {
    if (!hasWildcard(apiVersion)) return apiVersion;
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const candidate of await this.servedGroupVersions(group, version)) {
      try {
        await this.resources.resource(candidate, kind);
        return candidate;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    throw new KubeApiError(404, 'NotFound', `no served version of kind "${kind}" matches apiVersion "${apiVersion}"`);
  }

  private async servedGroupVersions(groupPattern: string, versionPattern: string): Promise<string[]> {
    const served: string[] = [];
    if (wildcardMatch(groupPattern, '')) {
      const core = await this.read<{ versions?: string[] }>('/api');
      served.push(...(core.versions ?? []).filter((version) => wildcardMatch(versionPattern, version)));
    }
    if (groupPattern === '') return served;
    const { groups = [] } = await this.read<{ groups?: ApiGroup[] }>('/apis');
    for (const group of groups) {
      if (!wildcardMatch(groupPattern, group.name)) continue;
      const preferred = group.preferredVersion?.version;
      const versions = (group.versions ?? [])
        .map((entry) => entry.version)
        .filter((version) => wildcardMatch(versionPattern, version))
        .sort((a, b) => Number(b === preferred) - Number(a === preferred));
      served.push(...versions.map((version) => `${group.name}/${version}`));
    }
    return served;
  }

  private read<T>(path: string): Promise<T> {
    return this.resources.http.json<T>({
      path,
      totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  }
}

/** One entry of the API server's `/apis` group list. */
interface ApiGroup {
  name: string;
  versions?: { version: string }[];
  preferredVersion?: { version: string };
}
