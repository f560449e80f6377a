/** The served types: the built-ins plus whatever the stored CustomResourceDefinitions declare. */
import { BUILTIN_TYPES } from './builtin-types';
import { apiVersionOf, type ResourceType } from './resource-type';
import { compareKubeVersions } from './version-priority';

export interface GroupVersions {
  readonly group: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
}

export class ResourceRegistry {
  private readonly builtins: readonly ResourceType[];
  /** Types contributed by each CRD, by the CRD's name, in creation order. */
  private readonly custom = new Map<string, readonly ResourceType[]>();
  private cachedAll: readonly ResourceType[] | undefined;
  /** Bumped on every change so derived documents (OpenAPI hashes) can be cached. */
  private generation = 0;

  constructor(builtins: readonly ResourceType[] = BUILTIN_TYPES) {
    this.builtins = builtins;
  }

  get version(): number {
    return this.generation;
  }

  all(): readonly ResourceType[] {
    this.cachedAll ??= [...this.builtins, ...[...this.custom.values()].flat()];
    return this.cachedAll;
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all().find((type) => type.group === group && type.version === version && type.plural === plural);
  }

  findByKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.all().find((type) => apiVersionOf(type) === apiVersion && type.kind === kind);
  }

  /** Every version served for a group resource (a CRD may serve several). */
  versionsOf(group: string, plural: string): readonly ResourceType[] {
    return this.all().filter((type) => type.group === group && type.plural === plural);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.all().some((type) => type.group === group && type.version === version);
  }

  resourcesOf(group: string, version: string): readonly ResourceType[] {
    return this.all().filter((type) => type.group === group && type.version === version);
  }

  /** Named API groups (the core group excluded) in registration order, versions preferred first. */
  groups(): readonly GroupVersions[] {
    const byGroup = new Map<string, Set<string>>();
    for (const type of this.all()) {
      if (!type.group) continue;
      const versions = byGroup.get(type.group) ?? new Set<string>();
      versions.add(type.version);
      byGroup.set(type.group, versions);
    }
    return [...byGroup].map(([group, versions]) => ({ group, versions: [...versions].sort(compareKubeVersions) }));
  }

  /** Installs (or replaces) the types a CRD serves. */
  setCustom(crdName: string, types: readonly ResourceType[]): void {
    this.custom.set(crdName, types);
    this.changed();
  }

  removeCustom(crdName: string): boolean {
    const removed = this.custom.delete(crdName);
    if (removed) this.changed();
    return removed;
  }

  isCustomGroupResource(group: string, plural: string): boolean {
    return [...this.custom.values()].some((types) => types.some((t) => t.group === group && t.plural === plural));
  }

  private changed(): void {
    this.cachedAll = undefined;
    this.generation++;
  }
}
