/**
 * The kind of the resource a subresource request is about: `pods/exec` arrives as PodExecOptions and
 * `deployments/scale` as autoscaling/v1 Scale, but policies select them as `Pod/exec` and
 * `Deployment/scale`. Like Kyverno, the request's resource (group, version, plural) is looked up in
 * API discovery; a group version's answer is kept for `ttlMs`, and a resource missing from it
 * triggers at most one re-read per `ttlMs` (a CRD may have just been added).
 */
import type { GroupVersionKind } from '@edict/engine';

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** Reads one discovery document (`/api/v1`, `/apis/<group>/<version>`). */
export type DiscoveryReader = (path: string) => Promise<{ resources?: { name: string; kind: string }[] }>;

interface Entry {
  readonly at: number;
  readonly kinds: Promise<Map<string, string>>;
}

export class TopLevelKinds {
  private readonly byGroupVersion = new Map<string, Entry>();

  constructor(
    private readonly read: DiscoveryReader,
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The kind serving `gvr` (undefined when discovery does not know it or cannot be read). */
  async kindOf(gvr: GroupVersionResource): Promise<GroupVersionKind | undefined> {
    const key = `${gvr.group}/${gvr.version}`;
    let entry = this.fresh(key);
    let kind = (await this.kindsIn(entry, gvr))?.get(gvr.resource);
    if (kind === undefined && entry && this.now() - entry.at >= this.ttlMs / 10) {
      this.byGroupVersion.delete(key);
      entry = this.fresh(key);
      kind = (await this.kindsIn(entry, gvr))?.get(gvr.resource);
    }
    return kind === undefined ? undefined : { group: gvr.group, version: gvr.version, kind };
  }

  private fresh(key: string): Entry | undefined {
    const entry = this.byGroupVersion.get(key);
    if (entry && this.now() - entry.at < this.ttlMs) return entry;
    this.byGroupVersion.delete(key);
    return undefined;
  }

  private async kindsIn(entry: Entry | undefined, gvr: GroupVersionResource): Promise<Map<string, string> | undefined> {
    const key = `${gvr.group}/${gvr.version}`;
    if (!entry) {
      const path = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
      const kinds = this.read(path).then(
        (document) =>
          new Map((document.resources ?? []).filter((r) => !r.name.includes('/')).map((r) => [r.name, r.kind])),
      );
      entry = { at: this.now(), kinds };
      this.byGroupVersion.set(key, entry);
    }
    try {
      return await entry.kinds;
    } catch {
      // Unreadable discovery is not remembered: the next request tries again.
      if (this.byGroupVersion.get(key) === entry) this.byGroupVersion.delete(key);
      return undefined;
    }
  }
}
