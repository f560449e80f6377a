/**
 * The REST semantics of kube-apiserver over the store: create/get/list/update/patch/delete with
 * resourceVersion conflicts, namespaces that must exist and take their contents with them,
 * finalizers, dry-run, and CRDs that install and remove served types.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { establishedStatus, typesFromCrd, validateCrd } from '../registry/crd';
import type { ResourceRegistry } from '../registry/registry';
import { apiVersionOf, groupResourceKey, type ResourceType } from '../registry/resource-type';
import { applyJsonPatch } from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { applyStrategicMerge } from '../patch/strategic-merge';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  successStatus,
  unsupportedMediaType,
} from '../status';
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
import {
  checkTypeMeta,
  isNoOpUpdate,
  metadataOf,
  prepareCreate,
  prepareUpdate,
  timestamp,
  type PreparedCreate,
  type UpdateSubresource,
} from './prepare';
import {
  DEFAULT_USER,
  type AdmissionAttributes,
  type AdmissionChain,
  type AdmissionRequestContext,
  type UserInfo,
} from '../admission/types';
import { withoutOwner } from '../gc/dependents';
import { isEventsV1Type, storageKey, toCoreEvent, toEventsV1 } from './event-versions';
import { checkMatchConditions } from '../admission/match-conditions';
import { checkAgainstSchema, defaultedBySchema } from './schema-conformance';
import { checkApplyConfiguration, decodeFields, type DecodeOperation, type FieldValidation } from './field-validation';
import { applyConfiguration, managerFromUserAgent, recordUpdate } from '../apply/managed-fields';

export interface WriteOptions {
  /** `dryRun=All`: every check runs, nothing is stored. */
  readonly dryRun?: boolean;
  /** What unknown fields in the body do (see `field-validation.ts`); direct typed calls drop them silently. */
  readonly fieldValidation?: FieldValidation;
  /** Where `Warn` puts its warnings (the response's `Warning` headers). */
  readonly warnings?: string[];
  /** Keys the request body repeats (`spec.replicas`): reported as `fieldValidation` says. */
  readonly duplicateFields?: readonly string[];
}

export interface PatchOptions extends WriteOptions {
  readonly fieldManager?: string;
  readonly force?: boolean;
  /** Set by an apply: the body already carries its managedFields (no Update is recorded on top). */
  readonly fieldsRecorded?: boolean;
}

/** How dependents (objects whose ownerReferences name the deleted object) are treated. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions extends WriteOptions {
  readonly preconditions?: { readonly resourceVersion?: string; readonly uid?: string };
  /** Background (the default): the garbage collector deletes dependents after the owner is gone. */
  readonly propagationPolicy?: PropagationPolicy;
}

/** The `foregroundDeletion` finalizer: the owner stays until its dependents are gone. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** How many times an admitted update is retried when the object changed during admission. */
const ADMISSION_RETRIES = 5;

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

/** Names tried for a create with generateName before it answers AlreadyExists (kube's storage tries 8). */
const GENERATE_NAME_ATTEMPTS = 8;
const CRD_RESOURCE = groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions');
const NAMESPACES = groupResourceKey('', 'namespaces');
const CORE_EVENTS = groupResourceKey('', 'events');

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
      .filter((object) => (start === '' || objectKeyOf(object) >= start) && matchesFilter(filter, object));
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

  create(type: ResourceType, namespace: string | undefined, body: JsonValue, options: PatchOptions = {}): WriteResult {
    if (!isObject(body)) throw kindMissing(body);
    const decoded = decodeBody(type, body, options, 'create');
    const owned = this.owned(type, undefined, decoded, options);
    return this.commitCreate(type, namespace, this.planCreate(type, namespace, owned, DEFAULT_USER), options);
  }

  /** System metadata and every check a create makes before anything is stored. */
  private planCreate(
    type: ResourceType,
    namespace: string | undefined,
    body: JsonObject,
    user: UserInfo,
  ): PreparedCreate {
    const defaulted = defaultedBySchema(type, body);
    const prepare = () => prepareCreate(type, ns(type, namespace) || undefined, defaulted, this.now(), user);
    let prepared = prepare();
    // A generated name already taken gets another, as Kubernetes does since 1.31 (RetryGenerateName).
    const generated = prepared.name !== metadataOf(body).name;
    for (
      let attempt = 1;
      generated && attempt < GENERATE_NAME_ATTEMPTS && this.exists(type, namespace, prepared.name);
      attempt++
    )
      prepared = prepare();
    checkAgainstSchema(type, prepared.object);
    this.checkCreatable(type, namespace, prepared.name);
    if (key(type) === CRD_RESOURCE) this.checkCrd(prepared.object);
    checkMatchConditions(type, prepared.object);
    return prepared;
  }

  private exists(type: ResourceType, namespace: string | undefined, name: string): boolean {
    return this.store.get(key(type), ns(type, namespace), name) !== undefined;
  }

  private checkCreatable(type: ResourceType, namespace: string | undefined, name: string): void {
    if (type.namespaced) this.requireNamespace(namespace!);
    if (this.exists(type, namespace, name)) {
      throw alreadyExists({ group: type.group, kind: type.plural, name });
    }
  }

  private commitCreate(
    type: ResourceType,
    namespace: string | undefined,
    { object, name }: PreparedCreate,
    options: WriteOptions,
  ): WriteResult {
    // Checked again: the state may have moved on while webhooks were called.
    this.checkCreatable(type, namespace, name);
    if (options.dryRun) return { object: asVersion(type, object), code: 201 };
    const stored = this.write(type, object);
    return { object: asVersion(type, stored), code: 201 };
  }

  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource } = {},
  ): WriteResult {
    if (!isObject(body)) throw kindMissing(body);
    body = decodeBody(type, body, options, 'update');
    const old = this.store.get(key(type), ns(type, namespace), name);
    if (!old) throw notFound({ group: type.group, kind: type.plural, name });
    const requested = metadataOf(body).resourceVersion;
    if (requested !== undefined && requested !== '' && requested !== metadataOf(old).resourceVersion) {
      throw conflict({ group: type.group, kind: type.plural, name });
    }
    const owned = this.owned(type, old, body, options);
    return this.commitUpdate(type, old, this.planUpdate(type, old, owned, options.subresource), options);
  }

  /** The object an update would store, after every check an update makes before admission. */
  private planUpdate(
    type: ResourceType,
    old: JsonObject,
    body: JsonObject,
    subresource: UpdateSubresource | undefined,
  ): JsonObject {
    const updated = prepareUpdate(type, old, defaultedBySchema(type, body), subresource, this.now());
    checkAgainstSchema(type, updated);
    if (key(type) === CRD_RESOURCE) this.checkCrd(updated);
    checkMatchConditions(type, updated);
    return updated;
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource } = {},
  ): WriteResult {
    checkPatchRequest(type, patchType, options);
    const old = this.store.get(key(type), ns(type, namespace), name);
    const recorded = { ...options, fieldsRecorded: patchType === 'apply' };
    if (!old) {
      if (patchType !== 'apply') throw notFound({ group: type.group, kind: type.plural, name });
      checkApplyConfiguration(type, patch, namespace, name);
      return this.create(
        type,
        namespace,
        this.applied(type, undefined, applyCreateBody(name, patch), options),
        recorded,
      );
    }
    return this.update(type, namespace, name, this.patched(type, old, patchType, patch, options), recorded);
  }

  /** Server-side apply with field ownership (`apply/managed-fields.ts`); 409 on conflicts unless forced. */
  private applied(
    type: ResourceType,
    old: JsonObject | undefined,
    config: JsonObject,
    options: PatchOptions & { subresource?: UpdateSubresource },
  ): JsonObject {
    const owner = { manager: options.fieldManager!, subresource: options.subresource, now: this.now() };
    return applyConfiguration(type, old && asVersion(type, old), config, { ...owner, force: options.force === true });
  }

  /** The body with managedFields updated for an Update by the request's manager (fieldManager, else its user agent). */
  private owned(
    type: ResourceType,
    old: JsonObject | undefined,
    body: JsonObject,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context?: AdmissionRequestContext,
  ): JsonObject {
    if (options.fieldsRecorded) return body;
    const manager = options.fieldManager ?? managerFromUserAgent(context?.userAgent);
    const owner = { manager, subresource: options.subresource, now: this.now() };
    return recordUpdate(type, old && asVersion(type, old), body, owner);
  }

  private patched(
    type: ResourceType,
    old: JsonObject,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
  ): JsonValue {
    if (patchType === 'apply') checkApplyConfiguration(type, patch, metadataOf(old).namespace as string, nameOf(old));
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
        if (!isObject(patch)) throw badRequest('an apply patch must be a JSON or YAML object');
        patched = this.applied(type, old, patch, options);
        break;
    }
    return isObject(patched) && patchType !== 'apply' ? decodeBody(type, patched, options, 'patch') : patched;
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
    const policy = options.propagationPolicy ?? 'Background';
    const hasDependents = policy !== 'Background' && this.store.dependentsOf(String(meta.uid)).length > 0;
    // Orphans lose their reference to the owner at once (what kube's `orphan` finalizer leads to).
    if (policy === 'Orphan' && hasDependents && !options.dryRun) this.orphanDependents(String(meta.uid));
    let finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (policy === 'Foreground' && hasDependents && !finalizers.includes(FOREGROUND_FINALIZER)) {
      finalizers = [...finalizers, FOREGROUND_FINALIZER];
    }
    if (finalizers.length > 0) {
      // Deletion waits for the finalizers: mark the object and keep it.
      if (meta.deletionTimestamp !== undefined && finalizers === meta.finalizers) {
        return { object: asVersion(type, old), code: 202 };
      }
      const marked = {
        ...old,
        metadata: {
          ...meta,
          finalizers,
          deletionTimestamp: meta.deletionTimestamp ?? timestamp(this.now()),
          deletionGracePeriodSeconds: 0,
        },
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
      return this.delete(type, meta.namespace as string | undefined, meta.name as string, {
        dryRun: options.dryRun,
        propagationPolicy: options.propagationPolicy,
      }).object;
    });
    return { items: deleted, resourceVersion: String(this.store.resourceVersion) };
  }

  /** Removes the owner reference to `ownerUid` from every dependent. */
  orphanDependents(ownerUid: string): void {
    for (const { groupResource, object } of this.store.dependentsOf(ownerUid)) {
      this.store.put(groupResource, {
        ...withoutOwner(object, ownerUid),
        metadata: {
          ...metadataOf(withoutOwner(object, ownerUid)),
          resourceVersion: String(this.store.nextResourceVersion()),
        },
      });
    }
  }

  // Writes through the admission chain (the HTTP API). Without a chain they are the plain writes.

  /** The webhook admission chain HTTP writes go through; direct typed calls skip it. */
  admission: AdmissionChain | undefined;

  async createAdmitted(
    type: ResourceType,
    namespace: string | undefined,
    body: JsonValue,
    options: PatchOptions,
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    const admission = this.admission;
    if (!admission) return this.create(type, namespace, body, options);
    if (!isObject(body)) throw kindMissing(body);
    checkTypeMeta(type, body);
    body = decodeBody(type, body, options, 'create');
    const owned = this.owned(type, undefined, body, options, context);
    const input = defaultedBySchema(type, typed(type, owned, type.namespaced ? { namespace: namespace! } : {}));
    const base = this.attributes(type, 'CREATE', '', options, context, createOptions(options));
    const mutated = await admission.mutate(
      { ...base, name: nameOf(input), namespace: attributeNamespace(type, namespace, input), object: input },
      context.warnings,
    );
    if (!mutated) throw kindMissing(null);
    const prepared = this.planCreate(type, namespace, mutated, context.userInfo);
    const object = asVersion(type, prepared.object);
    await admission.validate(
      { ...base, name: prepared.name, namespace: attributeNamespace(type, namespace, object), object },
      context.warnings,
    );
    return this.commitCreate(type, namespace, prepared, options);
  }

  async updateAdmitted(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    const admission = this.admission;
    if (!admission) return this.update(type, namespace, name, body, options);
    if (!isObject(body)) throw kindMissing(body);
    body = decodeBody(type, body, options, 'update');
    const target = { group: type.group, kind: type.plural, name };
    const requested = metadataOf(body).resourceVersion;
    const pinned = requested !== undefined && requested !== '';
    for (let attempt = 0; ; attempt++) {
      const old = this.store.get(key(type), ns(type, namespace), name);
      if (!old) throw notFound(target);
      if (pinned && requested !== metadataOf(old).resourceVersion) throw conflict(target);
      checkTypeMeta(type, body);
      const oldObject = asVersion(type, old);
      const owned = this.owned(type, old, body, options, context);
      const input = defaultedBySchema(
        type,
        typed(type, owned, { name, ...(type.namespaced ? { namespace: namespace! } : {}) }),
      );
      const base = {
        ...this.attributes(type, 'UPDATE', options.subresource ?? '', options, context, updateOptions(options)),
        name,
        namespace: attributeNamespace(type, namespace, oldObject),
        oldObject,
      };
      const mutated = (await admission.mutate({ ...base, object: input }, context.warnings)) ?? input;
      const updated = this.planUpdate(type, old, mutated, options.subresource);
      await admission.validate({ ...base, object: asVersion(type, updated) }, context.warnings);
      const latest = this.store.get(key(type), ns(type, namespace), name);
      if (!latest) throw notFound(target);
      // Stored objects are replaced, never changed in place: identity tells whether someone wrote meanwhile.
      if (latest !== old) {
        if (pinned || attempt >= ADMISSION_RETRIES) throw conflict(target);
        continue;
      }
      return this.commitUpdate(type, old, updated, options);
    }
  }

  async patchAdmitted(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    if (!this.admission) return this.patch(type, namespace, name, patchType, patch, options);
    checkPatchRequest(type, patchType, options);
    const pinned = isObject(patch) && isObject(patch.metadata) && typeof patch.metadata.resourceVersion === 'string';
    const recorded = { ...options, fieldsRecorded: patchType === 'apply' };
    for (let attempt = 0; ; attempt++) {
      const old = this.store.get(key(type), ns(type, namespace), name);
      if (!old) {
        if (patchType !== 'apply') throw notFound({ group: type.group, kind: type.plural, name });
        checkApplyConfiguration(type, patch, namespace, name);
        const created = this.applied(type, undefined, applyCreateBody(name, patch), options);
        return this.createAdmitted(type, namespace, created, recorded, context);
      }
      // Outside the retry: an apply conflict between managers is final.
      const patched = this.patched(type, old, patchType, patch, options);
      try {
        return await this.updateAdmitted(type, namespace, name, patched, recorded, context);
      } catch (error) {
        // A patch applies to whatever is current: a conflict from a concurrent write means try again.
        const retry = error instanceof ApiError && error.code === 409 && !pinned && attempt < ADMISSION_RETRIES;
        if (!retry) throw error;
      }
    }
  }

  async deleteAdmitted(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    const admission = this.admission;
    if (!admission) return this.delete(type, namespace, name, options);
    const old = this.store.get(key(type), ns(type, namespace), name);
    if (!old) throw notFound({ group: type.group, kind: type.plural, name });
    const oldObject = asVersion(type, old);
    const attributes: AdmissionAttributes = {
      ...this.attributes(type, 'DELETE', '', options, context, deleteOptionsObject(options)),
      name,
      namespace: attributeNamespace(type, namespace, oldObject),
      oldObject,
    };
    await admission.mutate(attributes, context.warnings);
    await admission.validate(attributes, context.warnings);
    return this.delete(type, namespace, name, options);
  }

  async deleteCollectionAdmitted(
    type: ResourceType,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): Promise<ListResult> {
    if (!this.admission) return this.deleteCollection(type, namespace, listOptions, options);
    const { items } = this.list(type, namespace, {
      labelSelector: listOptions.labelSelector,
      fieldSelector: listOptions.fieldSelector,
    });
    const deleted: JsonObject[] = [];
    for (const item of items) {
      const meta = metadataOf(item);
      const result = await this.deleteAdmitted(
        type,
        meta.namespace as string | undefined,
        meta.name as string,
        { dryRun: options.dryRun, propagationPolicy: options.propagationPolicy },
        context,
      );
      deleted.push(result.object);
    }
    return { items: deleted, resourceVersion: String(this.store.resourceVersion) };
  }

  private attributes(
    type: ResourceType,
    operation: AdmissionAttributes['operation'],
    subresource: string,
    options: WriteOptions,
    context: AdmissionRequestContext,
    requestOptions: JsonObject,
  ): Omit<AdmissionAttributes, 'name' | 'namespace'> {
    return {
      operation,
      type,
      subresource,
      dryRun: options.dryRun === true,
      userInfo: context.userInfo,
      options: requestOptions,
    };
  }

  private commitUpdate(type: ResourceType, old: JsonObject, updated: JsonObject, options: WriteOptions): WriteResult {
    const meta = metadataOf(updated);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
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
      ...toCoreEvent(object),
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

/** A body decoded under the request's `fieldValidation` (direct typed calls: dropped silently). */
function decodeBody(
  type: ResourceType,
  body: JsonObject,
  options: WriteOptions,
  operation: DecodeOperation,
): JsonObject {
  return decodeFields(
    type,
    body,
    options.fieldValidation ?? 'Ignore',
    operation,
    options.warnings ?? [],
    options.duplicateFields ?? [],
  );
}

function kindMissing(body: JsonValue): ApiError {
  return new ApiError(400, 'BadRequest', `Object 'Kind' is missing in '${JSON.stringify(body)}'`);
}

function checkPatchRequest(type: ResourceType, patchType: PatchType, options: PatchOptions): void {
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
}

/** The object an apply patch creates when nothing exists yet. */
function applyCreateBody(name: string, patch: JsonValue): JsonObject {
  const body = isObject(patch) ? patch : {};
  const bodyName = metadataOf(body).name;
  if (bodyName !== undefined && bodyName !== name) {
    throw new ApiError(
      400,
      'BadRequest',
      `the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`,
    );
  }
  return { ...body, metadata: { ...metadataOf(body), name } };
}

/** A request body with apiVersion, kind and the URL's metadata filled in, as webhooks see it. */
function typed(type: ResourceType, body: JsonObject, defaults: JsonObject): JsonObject {
  const metadata: JsonObject = { ...metadataOf(body) };
  // Only fills what the body leaves out: mismatches are still reported by the checks that follow.
  for (const [field, value] of Object.entries(defaults)) {
    if (metadata[field] === undefined || metadata[field] === '') metadata[field] = value;
  }
  return { ...body, apiVersion: apiVersionOf(type), kind: type.kind, metadata };
}

function nameOf(object: JsonObject): string {
  const name = metadataOf(object).name;
  return typeof name === 'string' ? name : '';
}

/** kube puts a Namespace's own name in the request's namespace field. */
function attributeNamespace(type: ResourceType, namespace: string | undefined, object: JsonObject): string {
  if (key(type) === NAMESPACES) return nameOf(object);
  return type.namespaced ? (namespace ?? '') : '';
}

function dryRunField(options: WriteOptions): JsonObject {
  return options.dryRun ? { dryRun: ['All'] } : {};
}

function createOptions(options: PatchOptions): JsonObject {
  return {
    kind: 'CreateOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
  };
}

function updateOptions(options: PatchOptions): JsonObject {
  return {
    kind: 'UpdateOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
  };
}

function deleteOptionsObject(options: DeleteOptions): JsonObject {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.preconditions ? { preconditions: { ...options.preconditions } } : {}),
  };
}

function key(type: ResourceType): string {
  return storageKey(type);
}

function ns(type: ResourceType, namespace: string | undefined): string {
  return type.namespaced ? (namespace ?? '') : '';
}

/** A stored object as served at `type`'s version (CRD versions share storage without conversion). */
export function asVersion(type: ResourceType, object: JsonObject): JsonObject {
  if (storageKey(type) === CORE_EVENTS) return isEventsV1Type(type) ? toEventsV1(object) : toCoreEvent(object);
  const apiVersion = apiVersionOf(type);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}
