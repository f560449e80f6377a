/**
 * One group version's API resources (`/api/v1`, `/apis/<group>/<version>`), read on first use and
 * cached: the lookup by kind or resource name both the REST client (`KubeResources`) and the
 * admission path (`ApiResources`) make. A name missing from a cached answer reads the group version
 * again (a CRD may have just been added), as Kyverno's discovery client retries a lookup once on a
 * cache that is not fresh; an unreadable group version is not remembered, so the next lookup tries
 * again. What differs between the two users is configuration: how long an answer is kept, how soon
 * a miss may read again, and whether reads of group versions not cached are budgeted.
 */
import type { ReadBudget } from '../http/read-budget';

/** A top-level API resource as discovery serves it (subresources are left out; other fields are kept). */
export interface ServedResource {
  /** The plural REST name (`configmaps`). */
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly verbs?: readonly string[];
}

/** Reads one discovery document. */
export type GroupVersionReader = (
  path: string,
  signal?: AbortSignal,
) => Promise<{ resources?: Array<Omit<ServedResource, 'namespaced'> & { namespaced?: boolean }> }>;

export interface GroupVersionResourcesOptions {
  /** How long a group version's answer is kept (default: until a miss reads it again). */
  readonly ttlMs?: number;
  /** How old a cached answer must be before a miss reads it again (default 0: at once). */
  readonly missRereadAfterMs?: number;
  /** Limits reads of group versions not cached (made-up group versions cost a bounded number). */
  readonly budget?: ReadBudget;
  readonly now?: () => number;
}

/** Thrown when reads of group versions not cached are over their budget. */
export class DiscoveryBudgetSpent extends Error {}

interface Entry {
  readonly at: number;
  readonly resources: Promise<readonly ServedResource[]>;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** `v1` for the core group, else `<group>/<version>`. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export class GroupVersionResources {
  private readonly byApiVersion = new Map<string, Entry>();
  /** Kinds discovery has served so far (bounded by what the cluster serves). */
  private readonly served = new Set<string>();
  private readonly ttlMs: number;
  private readonly missRereadAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly read: GroupVersionReader,
    private readonly options: GroupVersionResourcesOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? Infinity;
    this.missRereadAfterMs = options.missRereadAfterMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  /**
   * The resource of `apiVersion` that `wanted` picks, undefined when discovery does not serve it;
   * throws when the group version cannot be read (or its reads are over their budget).
   */
  async find(
    apiVersion: string,
    wanted: (resource: ServedResource) => boolean,
    signal?: AbortSignal,
  ): Promise<ServedResource | undefined> {
    let entry = this.fresh(apiVersion);
    let found = (await this.resourcesOf(apiVersion, entry, signal)).find(wanted);
    if (found === undefined && entry && this.now() - entry.at >= this.missRereadAfterMs) {
      this.byApiVersion.delete(apiVersion);
      entry = this.fresh(apiVersion);
      found = (await this.resourcesOf(apiVersion, entry, signal)).find(wanted);
    }
    return found;
  }

  /** Whether a discovery answer read so far served this kind (no read is made). */
  knowsKind(kind: string): boolean {
    return this.served.has(kind);
  }

  private fresh(apiVersion: string): Entry | undefined {
    const entry = this.byApiVersion.get(apiVersion);
    if (entry && this.now() - entry.at < this.ttlMs) return entry;
    this.byApiVersion.delete(apiVersion);
    return undefined;
  }

  private async resourcesOf(
    apiVersion: string,
    entry: Entry | undefined,
    signal?: AbortSignal,
  ): Promise<readonly ServedResource[]> {
    if (!entry) {
      const budget = this.options.budget;
      if (budget && !budget.take())
        throw new DiscoveryBudgetSpent(`discovery reads are over their budget (${budget.perSecond} per second)`);
      const resources = this.read(groupVersionPath(apiVersion), signal).then((document) =>
        (document.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r) => {
            this.served.add(r.kind);
            return { ...r, namespaced: r.namespaced === true };
          }),
      );
      entry = { at: this.now(), resources };
      this.byApiVersion.set(apiVersion, entry);
    }
    try {
      return await entry.resources;
    } catch (error) {
      // Unreadable discovery is not remembered: the next lookup tries again.
      if (this.byApiVersion.get(apiVersion) === entry) this.byApiVersion.delete(apiVersion);
      throw error;
    }
  }
}
