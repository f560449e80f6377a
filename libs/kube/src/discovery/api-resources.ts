/**
 * API discovery answers the admission path needs, per group version:
 *  - the kind of the resource a subresource request is about: `pods/exec` arrives as
 *    PodExecOptions and `deployments/scale` as autoscaling/v1 Scale, but policies select them as
 *    `Pod/exec` and `Deployment/scale` (Kyverno looks the request's resource up the same way);
 *  - a kind's resource name and scope, for requests the admin `evaluate` endpoint builds.
 * A group version's answer is kept for `ttlMs`; a name missing from it triggers at most one
 * re-read per tenth of `ttlMs` (a CRD may have just been added).
 *
 * The group version comes from the review, so reads of group versions not cached are budgeted
 * (DISCOVERY_READS_PER_SECOND, burst DISCOVERY_READ_BURST): made-up ones cost a bounded number of
 * reads. A subresource review whose parent kind cannot be found (discovery unreadable, over its
 * budget, or not serving the resource) is not evaluated against its own kind: `parentKindOf` throws
 * and the review is answered by its failure policy, as Kyverno answers when discovery fails.
 */
import type { GroupVersionKind } from '@edict/engine';
import { ReadBudget } from '../http/read-budget';

/** Discovery reads of group versions not cached, per second and at once. */
export const DISCOVERY_READS_PER_SECOND = 10;
export const DISCOVERY_READ_BURST = 20;

/** Why a group version's discovery gave no answer. */
export class DiscoveryUnavailable extends Error {}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** Reads one discovery document (`/api/v1`, `/apis/<group>/<version>`). */
export type DiscoveryReader = (
  path: string,
) => Promise<{ resources?: { name: string; kind: string; namespaced?: boolean }[] }>;

export interface ApiResource {
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

interface Entry {
  readonly at: number;
  /** Top-level resources (no subresources) of the group version. */
  readonly resources: Promise<readonly ApiResource[]>;
}

export class ApiResources {
  private readonly byGroupVersion = new Map<string, Entry>();
  /** Kinds discovery has served so far (bounded by what the cluster serves). */
  private readonly served = new Set<string>();

  private readonly budget: ReadBudget;

  constructor(
    private readonly read: DiscoveryReader,
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.budget = new ReadBudget(DISCOVERY_READS_PER_SECOND, DISCOVERY_READ_BURST, now);
  }

  /** The kind serving `gvr` (undefined when discovery does not know it or cannot be read). */
  async kindOf(gvr: GroupVersionResource): Promise<GroupVersionKind | undefined> {
    const found = await this.find(gvr.group, gvr.version, (entry) => entry.resource === gvr.resource);
    return found && { group: gvr.group, version: gvr.version, kind: found.kind };
  }

  /**
   * The kind of the resource a subresource request (`subresource`) is about; throws a message naming
   * the resource when discovery cannot be read or does not serve it, so that the review is answered
   * by its failure policy rather than matched against the subresource's own kind.
   */
  async parentKindOf(gvr: GroupVersionResource, subresource: string): Promise<GroupVersionKind> {
    const groupVersion = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
    const what = `the ${gvr.resource}/${subresource} request's resource ${gvr.resource} (${groupVersion})`;
    let found: ApiResource | undefined;
    try {
      found = await this.lookup(gvr.group, gvr.version, (entry) => entry.resource === gvr.resource);
    } catch (error) {
      throw new DiscoveryUnavailable(
        `API discovery could not tell the kind of ${what}: ${(error as Error).message}; the review is not ` +
          `evaluated against the subresource's own kind and is answered by the webhook's failure policy`,
      );
    }
    if (!found)
      throw new DiscoveryUnavailable(
        `API discovery serves no ${what}; the review is answered by the webhook's failure policy`,
      );
    return { group: gvr.group, version: gvr.version, kind: found.kind };
  }

  /** Whether a discovery answer read so far served this kind (no read is made). */
  knowsKind(kind: string): boolean {
    return this.served.has(kind);
  }

  /** The resource serving `gvk`, with its scope (undefined when unknown). */
  resourceOf(gvk: GroupVersionKind): Promise<ApiResource | undefined> {
    return this.find(gvk.group, gvk.version, (entry) => entry.kind === gvk.kind);
  }

  /** The resource found, or undefined when discovery cannot be read or does not serve it. */
  private async find(
    group: string,
    version: string,
    wanted: (entry: ApiResource) => boolean,
  ): Promise<ApiResource | undefined> {
    try {
      return await this.lookup(group, version, wanted);
    } catch {
      return undefined;
    }
  }

  /** The resource found, undefined when discovery does not serve it; throws when it cannot be read. */
  private async lookup(
    group: string,
    version: string,
    wanted: (entry: ApiResource) => boolean,
  ): Promise<ApiResource | undefined> {
    const key = `${group}/${version}`;
    let entry = this.fresh(key);
    let found = (await this.resourcesIn(entry, group, version)).find(wanted);
    if (found === undefined && entry && this.now() - entry.at >= this.ttlMs / 10) {
      this.byGroupVersion.delete(key);
      entry = this.fresh(key);
      found = (await this.resourcesIn(entry, group, version)).find(wanted);
    }
    return found;
  }

  private fresh(key: string): Entry | undefined {
    const entry = this.byGroupVersion.get(key);
    if (entry && this.now() - entry.at < this.ttlMs) return entry;
    this.byGroupVersion.delete(key);
    return undefined;
  }

  private async resourcesIn(entry: Entry | undefined, group: string, version: string): Promise<readonly ApiResource[]> {
    const key = `${group}/${version}`;
    if (!entry) {
      if (!this.budget.take())
        throw new Error(`discovery reads are over their budget (${DISCOVERY_READS_PER_SECOND} per second)`);
      const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
      const resources = this.read(path).then((document) =>
        (document.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r) => {
            this.served.add(r.kind);
            return { resource: r.name, kind: r.kind, namespaced: r.namespaced === true };
          }),
      );
      entry = { at: this.now(), resources };
      this.byGroupVersion.set(key, entry);
    }
    try {
      return await entry.resources;
    } catch (error) {
      // Unreadable discovery is not remembered: the next request tries again.
      if (this.byGroupVersion.get(key) === entry) this.byGroupVersion.delete(key);
      throw error;
    }
  }
}
