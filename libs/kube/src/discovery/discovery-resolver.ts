/**
 * Kind selectors → API resources through API discovery, as Kyverno's discovery lookup does: a `*`
 * (or wildcarded) group, version or kind matches every group version / kind that fits; a
 * subresource must be served by the parent resource; a kind nothing serves resolves to nothing.
 * The answers of one pass are cached for `cacheMs`; past it, a pass still answers from them while
 * discovery is read again for the next one, so a policy change never waits on a full read (a kind
 * they lack forces one, see `resolver`). A group version whose discovery fails makes the selectors
 * that could live there unknown (`undefined`), so the reconciler will not narrow.
 */
import { wildcardMatch, parseKind } from '@edict/foundation';
import type { KubeHttpClient } from '../http/kube-http-client';
import { apiVersionOf, groupVersionPath } from './group-version-resources';
import type { ResolvedResource, ResourceResolver } from './resource-resolver';

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs?: readonly string[];
}

interface GroupVersionResources {
  readonly group: string;
  readonly version: string;
  /** undefined when this group version's discovery failed. */
  readonly resources?: readonly ApiResource[];
}

/** Answers a pass of kind lookups (sync), from discovery read beforehand (async). */
export interface DiscoverySource {
  /** `kinds`: the pass's kind selectors (as written in policies), to check against cached discovery. */
  resolver(kinds?: readonly string[]): Promise<ResourceResolver>;
  /**
   * Forgets cached discovery, so the next resolver reads it afresh: all of it, or with `group` only
   * the group list and that group's versions (what a CRD of the group changes).
   */
  invalidate(group?: string): void;
}

interface CachedTable {
  readonly at: number;
  readonly table: Promise<GroupVersionResources[]>;
}

export class DiscoveryResolver implements DiscoverySource {
  private cached?: CachedTable;
  /** Whether a read that replaces an expired table is under way (passes go on answering from it). */
  private refreshing = false;
  /** Groups to read again on the next pass, the rest of the cached table being kept. */
  private readonly staleGroups = new Set<string>();

  constructor(
    private readonly http: Pick<KubeHttpClient, 'json'>,
    private readonly cacheMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  invalidate(group?: string): void {
    if (group !== undefined) {
      this.staleGroups.add(group);
      return;
    }
    this.cached = undefined;
    this.staleGroups.clear();
  }

  /**
   * A kind that cached discovery does not serve may belong to a CRD created since it was read:
   * then discovery is read again once, as Kyverno's client retries a lookup on stale discovery.
   */
  async resolver(kinds: readonly string[] = []): Promise<ResourceResolver> {
    const first = await this.table();
    let table = first.table;
    if (table && !first.fresh && kinds.some((kind) => servedNowhere(first.table!, kind))) {
      this.invalidate();
      table = (await this.table()).table;
    }
    if (table?.some((gv) => !gv.resources)) this.cached = undefined; // retry the failed ones next pass
    const resolved = table;
    return (selector) => (resolved ? resolveIn(resolved, selector) : undefined);
  }

  /** The discovery table (undefined when unreadable); `fresh` when read by this call. */
  private async table(): Promise<{ table?: GroupVersionResources[]; fresh: boolean }> {
    let fresh = false;
    const expired = !this.cached || this.now() - this.cached.at > this.cacheMs;
    const cached = this.cached;
    if (cached && expired && this.staleGroups.size === 0) {
      this.refresh(cached);
      return { table: await cached.table.catch(() => undefined), fresh };
    }
    if (expired || this.staleGroups.size > 0) {
      const previous = expired ? undefined : this.cached!.table.catch(() => undefined);
      const stale = new Set(this.staleGroups);
      this.staleGroups.clear();
      const table = previous ? previous.then((kept) => this.read(kept, stale)) : this.read();
      this.cached = { at: expired ? this.now() : this.cached!.at, table };
      table.catch(() => (this.cached = undefined));
      fresh = true;
    }
    try {
      return { table: await this.cached!.table, fresh };
    } catch {
      return { fresh };
    }
  }

  /** Reads discovery again in the background; `expired` answers until then, and stays if the read fails. */
  private refresh(expired: CachedTable): void {
    if (this.refreshing) return;
    this.refreshing = true;
    void this.read()
      .then(
        (table) => {
          // An invalidation meanwhile asked for a read of its own: this one is already stale.
          if (this.cached === expired) this.cached = { at: this.now(), table: Promise.resolve(table) };
        },
        () => undefined,
      )
      .finally(() => (this.refreshing = false));
  }

  /** Reads discovery; with `kept`, group versions of groups not `stale` are taken from it. */
  private async read(
    kept?: readonly GroupVersionResources[],
    stale: ReadonlySet<string> = new Set(),
  ): Promise<GroupVersionResources[]> {
    const [core, apis] = await Promise.all([
      this.http.json<{ versions?: string[] }>({ path: '/api' }),
      this.http.json<{ groups?: Array<{ name: string; versions?: Array<{ version: string }> }> }>({ path: '/apis' }),
    ]);
    const groupVersions: Array<{ group: string; version: string; path: string }> = [
      ...(core.versions ?? []).map((version) => ({ group: '', version })),
      ...(apis.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => ({ group: g.name, version: v.version }))),
    ].map((gv) => ({ ...gv, path: groupVersionPath(apiVersionOf(gv.group, gv.version)) }));
    return Promise.all(
      groupVersions.map(async ({ group, version, path }) => {
        const known = stale.has(group) ? undefined : kept?.find((gv) => gv.group === group && gv.version === version);
        if (known?.resources) return known;
        try {
          const list = await this.http.json<{ resources?: ApiResource[] }>({ path });
          return { group, version, resources: list.resources ?? [] };
        } catch {
          return { group, version };
        }
      }),
    );
  }
}

/** Whether a named kind (no wildcard) resolves to no resource at all. */
function servedNowhere(table: readonly GroupVersionResources[], kind: string): boolean {
  const parsed = parseKind(kind);
  if (parsed.kind === '' || parsed.kind.includes('*')) return false;
  const selector = {
    group: parsed.group,
    version: parsed.version,
    kind: parsed.kind,
    subresource: parsed.subresource ?? '',
  };
  return resolveIn(table, selector)?.length === 0;
}

function resolveIn(
  table: readonly GroupVersionResources[],
  selector: Parameters<ResourceResolver>[0],
): ResolvedResource[] | undefined {
  const out: ResolvedResource[] = [];
  let unknown = false;
  for (const gv of table) {
    if (!wildcardMatch(selector.group, gv.group) || !wildcardMatch(selector.version, gv.version)) continue;
    if (!gv.resources) {
      unknown = true;
      continue;
    }
    const names = new Set(gv.resources.map((r) => r.name));
    for (const parent of gv.resources) {
      if (parent.name.includes('/') || !wildcardMatch(selector.kind, parent.kind)) continue;
      const base = {
        group: gv.group,
        version: gv.version,
        resource: parent.name,
        kind: parent.kind,
        namespaced: parent.namespaced,
        ...(parent.verbs ? { verbs: parent.verbs } : {}),
      };
      if (selector.subresource === '') out.push({ ...base, subresource: '' });
      else {
        for (const name of names) {
          if (!name.startsWith(`${parent.name}/`)) continue;
          const sub = name.slice(parent.name.length + 1);
          if (wildcardMatch(selector.subresource, sub)) out.push({ ...base, subresource: sub });
        }
      }
    }
  }
  return out.length === 0 && unknown ? undefined : out;
}
