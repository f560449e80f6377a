/**
 * GeneratorStore over the API server: informers for the source policies, their exceptions and the
 * generated kinds (their caches are what a pass reads), discovery for kinds and the served
 * MutatingAdmissionPolicy version, and writes through KubeResources (status through `/status`, with
 * a fresh read and a retry on conflict).
 */
import type { Policy, PolicyException } from '@edict/engine';
import {
  ADMISSION_REGISTRATION_GROUP,
  MAP_VERSIONS,
  type CelPolicyExceptionObject,
  type GeneratedObject,
  type KindResolver,
  type MutatingAdmissionPolicyVersion,
  type MutatingPolicyObject,
  type ValidatingPolicyObject,
} from '@edict/cel-policies';
import { isObject, parseKind, type JsonObject, type KubeObject } from '@edict/foundation';
import { KubeApiError, type DiscoverySource, type KubeResources } from '@edict/kube';
import type { GeneratedKind, GeneratorStatus, GeneratorStore, SourceRef } from './generation-pass';

/** An informer's cache as the store reads it. */
export interface ObjectCache<T> {
  list(): T[];
}

export interface KubeGeneratorStoreDeps {
  readonly resources: KubeResources;
  readonly discovery: DiscoverySource;
  readonly caches: {
    readonly clusterPolicies: ObjectCache<Policy>;
    readonly policyExceptions: ObjectCache<PolicyException>;
    readonly validatingPolicies: ObjectCache<KubeObject>;
    readonly mutatingPolicies: ObjectCache<KubeObject>;
    readonly celExceptions: ObjectCache<KubeObject>;
    readonly generated: Partial<Record<GeneratedKind, ObjectCache<KubeObject>>>;
  };
  readonly mutatingVersion: MutatingAdmissionPolicyVersion | undefined;
  /** Asks the API server whether this controller may do `verb` on the resource (a SelfSubjectAccessReview). */
  readonly mayDo: (verb: string, resource: string, version: string) => Promise<boolean>;
}

/** Where each source kind is read and its status written. */
const SOURCE_API_VERSION: Record<SourceRef['kind'], string> = {
  ClusterPolicy: 'kyverno.io/v1',
  ValidatingPolicy: 'policies.kyverno.io/v1',
  MutatingPolicy: 'policies.kyverno.io/v1',
};

const STATUS_ATTEMPTS = 5;

/** The MutatingAdmissionPolicy version discovery serves (policies and bindings), newest first. */
export async function servedMutatingVersion(
  discovery: DiscoverySource,
): Promise<MutatingAdmissionPolicyVersion | undefined> {
  const resolve = await discovery.resolver();
  for (const version of MAP_VERSIONS) {
    const served = (kind: string): boolean =>
      (resolve({ group: ADMISSION_REGISTRATION_GROUP, version, kind, subresource: '' }) ?? []).length > 0;
    if (served('MutatingAdmissionPolicy') && served('MutatingAdmissionPolicyBinding')) return version;
  }
  return undefined;
}

/** Whether discovery serves ValidatingAdmissionPolicies and their bindings in admissionregistration/v1. */
export async function servesValidatingPolicies(discovery: DiscoverySource): Promise<boolean> {
  const resolve = await discovery.resolver();
  const served = (kind: string): boolean =>
    (resolve({ group: ADMISSION_REGISTRATION_GROUP, version: 'v1', kind, subresource: '' }) ?? []).length > 0;
  return served('ValidatingAdmissionPolicy') && served('ValidatingAdmissionPolicyBinding');
}

export class KubeGeneratorStore implements GeneratorStore {
  constructor(private readonly deps: KubeGeneratorStoreDeps) {}

  clusterPolicies(): readonly Policy[] {
    return this.deps.caches.clusterPolicies.list();
  }

  policyExceptions(): readonly PolicyException[] {
    return this.deps.caches.policyExceptions.list();
  }

  validatingPolicies(): readonly ValidatingPolicyObject[] {
    return this.deps.caches.validatingPolicies.list() as ValidatingPolicyObject[];
  }

  mutatingPolicies(): readonly MutatingPolicyObject[] {
    return this.deps.caches.mutatingPolicies.list() as MutatingPolicyObject[];
  }

  celExceptions(): readonly CelPolicyExceptionObject[] {
    return this.deps.caches.celExceptions.list() as CelPolicyExceptionObject[];
  }

  existing(kind: GeneratedKind): readonly KubeObject[] {
    return (this.deps.caches.generated[kind]?.list() ?? []).map((object) => ({ ...object, kind }));
  }

  /** One resource per kind entry: the preferred version discovery lists for each group and resource. */
  async kindResolver(kinds: readonly string[]): Promise<KindResolver> {
    const resolve = await this.deps.discovery.resolver(kinds);
    return (kind) => {
      const parsed = parseKind(kind);
      const found = resolve({ ...parsed, subresource: parsed.subresource ?? '' }) ?? [];
      const seen = new Set<string>();
      const out: { group: string; version: string; resource: string }[] = [];
      for (const r of found) {
        const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
        const key = `${r.group}/${resource}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ group: r.group, version: r.version, resource });
      }
      return out;
    };
  }

  mutatingVersion(): MutatingAdmissionPolicyVersion | undefined {
    return this.deps.mutatingVersion;
  }

  /** As Kyverno checks before generating: create, update, list and delete, all allowed. */
  async permitted(resource: string, version: string): Promise<boolean> {
    for (const verb of ['create', 'update', 'list', 'delete']) {
      if (!(await this.deps.mayDo(verb, resource, version))) return false;
    }
    return true;
  }

  async create(object: GeneratedObject): Promise<void> {
    try {
      await this.deps.resources.create(object);
    } catch (error) {
      // Another pass (or a previous leader) created it meanwhile: the next pass compares it.
      if (!(error instanceof KubeApiError && error.code === 409)) throw error;
    }
  }

  async replace(desired: GeneratedObject, stored: KubeObject): Promise<void> {
    const metadata = {
      ...(stored.metadata ?? {}),
      ...desired.metadata,
      labels: { ...stored.metadata?.labels, ...desired.metadata.labels },
    };
    await this.deps.resources.replace({
      ...stored,
      apiVersion: desired.apiVersion,
      kind: desired.kind,
      metadata,
      spec: desired.spec,
    });
  }

  async remove(object: KubeObject): Promise<void> {
    try {
      await this.deps.resources.delete(
        { apiVersion: object.apiVersion ?? '', kind: object.kind ?? '', name: object.metadata?.name ?? '' },
        object.metadata?.uid ? { preconditions: { uid: object.metadata.uid } } : {},
      );
    } catch (error) {
      if (!(error instanceof KubeApiError && (error.code === 404 || error.code === 409))) throw error;
    }
  }

  async writeStatus(source: SourceRef, status: GeneratorStatus): Promise<void> {
    const apiVersion = SOURCE_API_VERSION[source.kind];
    for (let attempt = 0; attempt < STATUS_ATTEMPTS; attempt++) {
      const current = await this.deps.resources.find<KubeObject>({ apiVersion, kind: source.kind, name: source.name });
      if (!current) return;
      const next = withStatus(source.kind, isObject(current.status) ? current.status : {}, status);
      if (!next) return;
      try {
        await this.deps.resources.replace(
          { ...current, apiVersion, kind: source.kind, status: next },
          { subresource: 'status' },
        );
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 409)) throw error;
      }
    }
  }
}

/** The status with the generator's fields, or undefined when it already says so. */
export function withStatus(
  kind: SourceRef['kind'],
  current: JsonObject,
  status: GeneratorStatus,
): JsonObject | undefined {
  if (kind === 'ClusterPolicy') {
    const vap = isObject(current.validatingadmissionpolicy) ? current.validatingadmissionpolicy : {};
    if (vap.generated === status.generated && (vap.message ?? '') === status.message) return undefined;
    return { ...current, validatingadmissionpolicy: { generated: status.generated, message: status.message } };
  }
  const conditionStatus = isObject(current.conditionStatus) ? current.conditionStatus : {};
  if (current.generated === status.generated && (conditionStatus.message ?? '') === status.message) return undefined;
  return { ...current, generated: status.generated, conditionStatus: { ...conditionStatus, message: status.message } };
}
