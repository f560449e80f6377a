/**
 * The REST semantics of kube-apiserver over the store: create/get/list/update/patch/delete with
 * resourceVersion conflicts, namespaces that must exist and take their contents with them,
 * finalizers, dry-run, and CRDs that install and remove served types.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/engine';
import { establishedStatus, typesFromCrd, validateCrd } from '../registry/crd';
import type { ResourceRegistry } from '../registry/registry';
import { apiVersionOf, groupResourceKey, type ResourceType } from '../registry/resource-type';
import { applyJsonPatch } from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { applyStrategicMerge } from '../patch/strategic-merge';
import { ApiError, conflict, invalid, notFound, successStatus, unsupportedMediaType, alreadyExists } from '../status';
import type { ObjectStore } from '../store/object-store';
import {
  compileFilter,
  continueExpired,
  decodeContinue,
  encodeContinue,
  matchesFilter,
  objectKeyOf,
  type ListOptions,
} from './list';
import { isNoOpUpdate, metadataOf, prepareCreate, prepareUpdate, timestamp } from './prepare';

export interface WriteOptions {
  /** `dryRun=All`: every check runs, nothing is stored. */
  readonly dryRun?: boolean;
}

export interface PatchOptions extends WriteOptions {
  readonly fieldManager?: string;
  readonly force?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  readonly preconditions?: { readonly resourceVersion?: string; readonly uid?: string };
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export interface ListResult {
  readonly items: JsonObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface WriteResult {
  readonly object: JsonObject;
  /** 200, 201 (created) or 202 (deletion pending on finalizers). */
  readonly code: number;
}

const CRD_RESOURCE = groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions');
const NAMESPACES = groupResourceKey('', 'namespaces');

export class ResourceService {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get(type: ResourceType, namespace: string | undefined, name: string): JsonObject {
    const object = this.store.get(key(type), ns(type, namespace), name);
    if (!object) throw notFound({ group: type.group, kind: type.plural, name });
    return asVersion(type, object);
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const filter = compileFilter(type, options);
    let start = '';
    let resourceVersion = this.store.resourceVersion;
    if (options.continue) {
      const token = decodeContinue(options.continue);
      if (token.rv < this.store.oldestResumableVersion) throw continueExpired();
      start = token.start;
      resourceVersion = token.rv;
    }
    const all = this.store
      .list(key(type), type.namespaced ? namespace : undefined)
      .filter((object) => objectKeyOf(object) >= start && matchesFilter(filter, object));
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    const page = limit === undefined ? all : all.slice(0, limit);
    const more = limit !== undefined && all.length > limit;
    return {
      items: page.map((object) => asVersion(type, object)),
      resourceVersion: String(resourceVersion),
      ...(more
        ? {
            continue: encodeContinue(resourceVersion, objectKeyOf(page[page.length - 1]!)),
            remainingItemCount: all.length - limit,
          }
        : {}),
    };
  }

  create(type: ResourceType, namespace: string | undefined, body: JsonValue, options: WriteOptions = {}): WriteResult {
    if (!isObject(body)) throw new ApiError(400, 'BadRequest', `Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    const { object, name } = prepareCreate(type, ns(type, namespace) || undefined, body, this.now());
    if (type.namespaced) this.requireNamespace(namespace!);
    if (this.store.get(key(type), ns(type, namespace), name)) {
      throw alreadyExists({ group: type.group, kind: type.plural, name });
    }
    if (key(type) === CRD_RESOURCE) this.checkCrd(object);
    if (options.dryRun) return { object: asVersion(type, object), code: 201 };
    const stored = this.write(type, object);
    return { object: asVersion(type, stored), code: 201 };
  }

  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: JsonValue,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): WriteResult {
    if (!isObject(body)) throw new ApiError(400, 'BadRequest', `Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    const old = this.store.get(key(type), ns(type, namespace), name);
    if (!old) throw notFound({ group: type.group, kind: type.plural, name });
    const requested = metadataOf(body).resourceVersion;
    if (requested !== undefined && requested !== '' && requested !== metadataOf(old).resourceVersion) {
      throw conflict({ group: type.group, kind: type.plural, name });
    }
    const updated = prepareUpdate(type, old, body, options.subresource);
    return this.commitUpdate(type, old, updated, options);
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: 'status' } = {},
  ): WriteResult {
    if (patchType === 'strategic' && !type.builtin) {
      throw unsupportedMediaType(
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
      );
    }
    if (patchType === 'apply' && !options.fieldManager) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions', name: '' }, [
        { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
      ]);
    }
    const old = this.store.get(key(type), ns(type, namespace), name);
    if (!old) {
      if (patchType !== 'apply') throw notFound({ group: type.group, kind: type.plural, name });
      const body = isObject(patch) ? patch : {};
      const bodyName = metadataOf(body).name;
      if (bodyName !== undefined && bodyName !== name) {
        throw new ApiError(
          400,
          'BadRequest',
          `the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`,
        );
      }
      return this.create(type, namespace, { ...body, metadata: { ...metadataOf(body), name } }, options);
    }
    const current = asVersion(type, old);
    let patched: JsonValue;
    switch (patchType) {
      case 'json':
        patched = applyJsonPatch(current, patch);
        break;
      case 'merge':
        patched = applyMergePatch(current, patch);
        break;
      case 'strategic':
        patched = applyStrategicMerge(current, patch, apiVersionOf(type), type.kind);
        break;
      case 'apply':
        // Server-side apply without field ownership: the applied config merges into the live object.
        patched = type.builtin
          ? applyStrategicMerge(current, patch, apiVersionOf(type), type.kind)
          : applyMergePatch(current, patch);
        break;
    }
    return this.update(type, namespace, name, patched, options);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): WriteResult {
    const old = this.store.get(key(type), ns(type, namespace), name);
    const target = { group: type.group, kind: type.plural, name };
    if (!old) throw notFound(target);
    const meta = metadataOf(old);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw conflict(
        target,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        target,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`,
      );
    }
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (finalizers.length > 0) {
      // Deletion waits for the finalizers: mark the object and keep it.
      if (meta.deletionTimestamp !== undefined) return { object: asVersion(type, old), code: 202 };
      const marked = {
        ...old,
        metadata: { ...meta, deletionTimestamp: timestamp(this.now()), deletionGracePeriodSeconds: 0 },
      };
      if (options.dryRun) return { object: asVersion(type, marked), code: 202 };
      return { object: asVersion(type, this.write(type, marked)), code: 202 };
    }
    if (options.dryRun) return { object: this.deleteResponse(type, old), code: 200 };
    this.remove(type, old);
    return { object: this.deleteResponse(type, old), code: 200 };
  }

  deleteCollection(
    type: ResourceType,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions = {},
  ): ListResult {
    const { items } = this.list(type, namespace, {
      labelSelector: listOptions.labelSelector,
      fieldSelector: listOptions.fieldSelector,
    });
    const deleted = items.map((item) => {
      const meta = metadataOf(item);
      return this.delete(type, meta.namespace as string | undefined, meta.name as string, { dryRun: options.dryRun })
        .object;
    });
    return { items: deleted, resourceVersion: String(this.store.resourceVersion) };
  }

  private commitUpdate(type: ResourceType, old: JsonObject, updated: JsonObject, options: WriteOptions): WriteResult {
    const meta = metadataOf(updated);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (key(type) === CRD_RESOURCE) this.checkCrd(updated);
    if (meta.deletionTimestamp !== undefined && finalizers.length === 0) {
      // The last finalizer is gone from an object being deleted: it goes now.
      if (!options.dryRun) this.remove(type, updated);
      return { object: asVersion(type, updated), code: 200 };
    }
    if (isNoOpUpdate(old, updated)) return { object: asVersion(type, old), code: 200 };
    if (options.dryRun) return { object: asVersion(type, updated), code: 200 };
    return { object: asVersion(type, this.write(type, updated)), code: 200 };
  }

  /** Stores an object under a new resourceVersion, keeping served CRD types in step. */
  private write(type: ResourceType, object: JsonObject): JsonObject {
    let stored: JsonObject = {
      ...object,
      metadata: { ...metadataOf(object), resourceVersion: String(this.store.nextResourceVersion()) },
    };
    if (key(type) === CRD_RESOURCE) {
      stored = { ...stored, status: establishedStatus(stored, timestamp(this.now())) };
      this.registry.setCustom(metadataOf(stored).name as string, typesFromCrd(stored));
    }
    this.store.put(key(type), stored);
    return stored;
  }

  private remove(type: ResourceType, object: JsonObject): void {
    const meta = metadataOf(object);
    if (key(type) === NAMESPACES) this.removeNamespaceContents(meta.name as string);
    if (key(type) === CRD_RESOURCE) this.removeCustomResources(object);
    const finalState = { ...object, metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) } };
    this.store.remove(key(type), finalState);
  }

  private removeNamespaceContents(namespace: string): void {
    for (const groupResource of this.store.groupResources()) {
      if (groupResource === NAMESPACES) continue;
      for (const object of this.store.list(groupResource, namespace)) {
        const meta = metadataOf(object);
        if (meta.namespace !== namespace) continue;
        this.store.remove(groupResource, {
          ...object,
          metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) },
        });
      }
    }
  }

  private removeCustomResources(crd: JsonObject): void {
    const spec = crd.spec as JsonObject;
    const groupResource = groupResourceKey(spec.group as string, (spec.names as JsonObject).plural as string);
    for (const object of this.store.list(groupResource)) {
      const meta = metadataOf(object);
      this.store.remove(groupResource, {
        ...object,
        metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) },
      });
    }
    this.registry.removeCustom(metadataOf(crd).name as string);
  }

  private requireNamespace(namespace: string): void {
    if (!this.store.get(NAMESPACES, '', namespace)) throw notFound({ group: '', kind: 'namespaces', name: namespace });
  }

  private checkCrd(crd: JsonObject): void {
    const causes = validateCrd(crd);
    if (causes.length > 0) {
      throw invalid(
        { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', name: String(metadataOf(crd).name) },
        causes,
      );
    }
  }

  /** Pods and namespaces answer a delete with the object; other types with a success Status. */
  private deleteResponse(type: ResourceType, object: JsonObject): JsonObject {
    if (type.group === '' && (type.plural === 'pods' || type.plural === 'namespaces')) return asVersion(type, object);
    const meta = metadataOf(object);
    return successStatus({ group: type.group, kind: type.plural, name: meta.name as string }, meta.uid as string);
  }
}

function key(type: ResourceType): string {
  return groupResourceKey(type.group, type.plural);
}

function ns(type: ResourceType, namespace: string | undefined): string {
  return type.namespaced ? (namespace ?? '') : '';
}

/** A stored object as served at `type`'s version (CRD versions share storage without conversion). */
export function asVersion(type: ResourceType, object: JsonObject): JsonObject {
  const apiVersion = apiVersionOf(type);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}
