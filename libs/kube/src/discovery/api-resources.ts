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
import { errorMessage, type GroupVersionKind } from '@edict/foundation';
import { ReadBudget } from '../http/read-budget';
import {
  apiVersionOf,
  GroupVersionResources,
  type GroupVersionReader,
  type ServedResource,
} from './group-version-resources';

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

export interface ApiResource {
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export class ApiResources {
  private readonly groupVersions: GroupVersionResources;

  constructor(read: GroupVersionReader, ttlMs = 5 * 60_000, now: () => number = Date.now) {
    this.groupVersions = new GroupVersionResources(read, {
      ttlMs,
      missRereadAfterMs: ttlMs / 10,
      budget: new ReadBudget(DISCOVERY_READS_PER_SECOND, DISCOVERY_READ_BURST, now),
      now,
    });
  }

  /** The kind serving `gvr` (undefined when discovery does not know it or cannot be read). */
  async kindOf(gvr: GroupVersionResource): Promise<GroupVersionKind | undefined> {
    const found = await this.find(gvr.group, gvr.version, (entry) => entry.name === gvr.resource);
    return found && { group: gvr.group, version: gvr.version, kind: found.kind };
  }

  /**
   * The kind of the resource a subresource request (`subresource`) is about; throws a message naming
   * the resource when discovery cannot be read or does not serve it, so that the review is answered
   * by its failure policy rather than matched against the subresource's own kind.
   */
  async parentKindOf(gvr: GroupVersionResource, subresource: string): Promise<GroupVersionKind> {
    const groupVersion = apiVersionOf(gvr.group, gvr.version);
    const what = `the ${gvr.resource}/${subresource} request's resource ${gvr.resource} (${groupVersion})`;
    let found: ServedResource | undefined;
    try {
      found = await this.groupVersions.find(groupVersion, (entry) => entry.name === gvr.resource);
    } catch (error) {
      throw new DiscoveryUnavailable(
        `API discovery could not tell the kind of ${what}: ${errorMessage(error)}; the review is not ` +
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
    return this.groupVersions.knowsKind(kind);
  }

  /** The resource serving `gvk`, with its scope (undefined when unknown). */
  async resourceOf(gvk: GroupVersionKind): Promise<ApiResource | undefined> {
    const found = await this.find(gvk.group, gvk.version, (entry) => entry.kind === gvk.kind);
    return found && { resource: found.name, kind: found.kind, namespaced: found.namespaced };
  }

  /** The resource found, or undefined when discovery cannot be read or does not serve it. */
  private async find(
    group: string,
    version: string,
    wanted: (entry: ServedResource) => boolean,
  ): Promise<ServedResource | undefined> {
    try {
      return await this.groupVersions.find(apiVersionOf(group, version), wanted);
    } catch {
      return undefined;
    }
  }
}
