/**
 * The REST semantics of kube-apiserver over the store (kube's generic registry): create, get, list,
 * update, patch, delete and deletecollection with resourceVersion conflicts, namespaces that must
 * exist, finalizers and dry-run. Each write is one generator that yields its admission steps
 * (`admission/admission-steps.ts`), run through the chain given at construction, and ends in one
 * of the store writer's commits (`store-writer.ts`), which tells the lifecycle observers (`lifecycle/`).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { admit, NO_ADMISSION, withoutAdmission, type AdmittedWrite } from '../admission/admission-steps';
import { checkMatchConditions } from '../admission/match-conditions';
import { checkAdmissionPolicy, withAdmissionPolicyDefaults } from '../admission/native/policy-objects';
import {
  DEFAULT_USER,
  type AdmissionAttributes,
  type AdmissionChain,
  type AdmissionRequestContext,
  type UserInfo,
} from '../admission/types';
import { applyConfiguration, managerFromUserAgent, recordUpdate } from '../apply/managed-fields';
import { CRD_RESOURCE } from '../lifecycle/crd-lifecycle';
import type { StorageObserver } from '../lifecycle/storage-observer';
import { applyJsonPatch } from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { applyStrategicMerge } from '../patch/strategic-merge';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { ApiError, badRequest, conflict, notFound } from '../status';
import type { ObjectStore } from '../store/object-store';
import {
  attributeNamespace,
  createOptions,
  deleteOptionsObject,
  updateOptions,
  writeAttributes,
} from './admission-attributes';
import { checkApplyConfiguration } from './field-validation';
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
  metadataOf,
  prepareCreate,
  prepareUpdate,
  type PreparedCreate,
  type UpdateSubresource,
} from './prepare';
import { applyCreateBody, checkCrd, checkPatchRequest, decodeBody, kindMissing, nameOf, typed } from './request-bodies';
import { checkAgainstSchema, defaultedBySchema } from './schema-conformance';
import { StoreWriter } from './store-writer';
import { asVersion, storeKey, storeNamespace } from './stored-objects';
import type { DeleteOptions, ListResult, PatchOptions, PatchType, WriteResult } from './write-options';

/** How many times an admitted update is retried when the object changed during admission. */
const ADMISSION_RETRIES = 5;

/** Names tried for a create with generateName before it answers AlreadyExists (kube's storage tries 8). */
const GENERATE_NAME_ATTEMPTS = 8;

export interface ResourceServiceOptions {
  /** The admission chain every admitted write goes through (none: writes are as the cluster's own). */
  readonly admission?: AdmissionChain;
  /** Namespace and CRD lifecycle, told when objects are stored and removed. */
  readonly observers?: readonly StorageObserver[];
  readonly now?: () => Date;
}

/** The request of a write made as the cluster itself (no user agent: no field manager is derived). */
const CLUSTER_CONTEXT: AdmissionRequestContext = { userInfo: DEFAULT_USER, warnings: [] };

export class ResourceService {
  private readonly admission: AdmissionChain;
  private readonly writer: StoreWriter;
  private readonly now: () => Date;

  constructor(
    private readonly store: ObjectStore,
    options: ResourceServiceOptions = {},
  ) {
    this.admission = options.admission ?? NO_ADMISSION;
    this.now = options.now ?? (() => new Date());
    this.writer = new StoreWriter(store, options.observers ?? [], this.now);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): JsonObject {
    const object = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
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
      .list(storeKey(type), type.namespaced ? namespace : undefined)
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

  // Writes through the admission chain given at construction.

  create(
    type: ResourceType,
    namespace: string | undefined,
    body: JsonValue,
    options: PatchOptions,
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    return admit(this.creating(type, namespace, body, options, context), this.admission, context.warnings);
  }

  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    return admit(this.updating(type, namespace, name, body, options, context), this.admission, context.warnings);
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    const write = this.patching(type, namespace, name, patchType, patch, options, context);
    return admit(write, this.admission, context.warnings);
  }

  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): Promise<WriteResult> {
    return admit(this.deleting(type, namespace, name, options, context), this.admission, context.warnings);
  }

  deleteCollection(
    type: ResourceType,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): Promise<ListResult> {
    const write = this.deletingCollection(type, namespace, listOptions, options, context);
    return admit(write, this.admission, context.warnings);
  }

  /**
   * The same writes as the cluster itself makes them (the direct typed client, the garbage
   * collector, a subresource writing its parent): no admission step, done synchronously.
   */
  readonly withoutAdmission = {
    create: (type: ResourceType, namespace: string | undefined, body: JsonValue, options: PatchOptions = {}) =>
      withoutAdmission(this.creating(type, namespace, body, options, CLUSTER_CONTEXT)),
    update: (
      type: ResourceType,
      namespace: string | undefined,
      name: string,
      body: JsonValue,
      options: PatchOptions & { subresource?: UpdateSubresource } = {},
    ) => withoutAdmission(this.updating(type, namespace, name, body, options, CLUSTER_CONTEXT)),
    patch: (
      type: ResourceType,
      namespace: string | undefined,
      name: string,
      patchType: PatchType,
      patch: JsonValue,
      options: PatchOptions & { subresource?: UpdateSubresource } = {},
    ) => withoutAdmission(this.patching(type, namespace, name, patchType, patch, options, CLUSTER_CONTEXT)),
    delete: (type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}) =>
      withoutAdmission(this.deleting(type, namespace, name, options, CLUSTER_CONTEXT)),
    deleteCollection: (
      type: ResourceType,
      namespace: string | undefined,
      listOptions: ListOptions,
      options: DeleteOptions = {},
    ) => withoutAdmission(this.deletingCollection(type, namespace, listOptions, options, CLUSTER_CONTEXT)),
  };

  /** Drops one dependent's reference to a removed owner, as the garbage collector does when another owner lives. */
  removeOwnerReference(groupResource: string, object: JsonObject, ownerUid: string): void {
    this.writer.removeOwnerReference(groupResource, object, ownerUid);
  }

  // One write per verb, each yielding its admission steps (see admission-steps.ts).

  private *creating(
    type: ResourceType,
    namespace: string | undefined,
    body: JsonValue,
    options: PatchOptions,
    context: AdmissionRequestContext,
  ): AdmittedWrite<WriteResult> {
    if (!isObject(body)) throw kindMissing(body);
    checkTypeMeta(type, body);
    body = decodeBody(type, body, options, 'create');
    const owned = this.owned(type, undefined, body, options, context);
    const input = defaultedBySchema(type, typed(type, owned, type.namespaced ? { namespace: namespace! } : {}));
    const base = writeAttributes(type, 'CREATE', '', options, context, createOptions(options));
    const mutated = yield {
      phase: 'mutate',
      attributes: {
        ...base,
        name: nameOf(input),
        namespace: attributeNamespace(type, namespace, input),
        object: input,
      },
    };
    if (!mutated) throw kindMissing(null);
    const prepared = this.planCreate(type, namespace, mutated, context.userInfo);
    const object = asVersion(type, prepared.object);
    yield {
      phase: 'validate',
      attributes: { ...base, name: prepared.name, namespace: attributeNamespace(type, namespace, object), object },
    };
    return this.writer.commitCreate(type, namespace, prepared, options);
  }

  private *updating(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): AdmittedWrite<WriteResult> {
    if (!isObject(body)) throw kindMissing(body);
    body = decodeBody(type, body, options, 'update');
    const target = { group: type.group, kind: type.plural, name };
    const requested = metadataOf(body).resourceVersion;
    const pinned = requested !== undefined && requested !== '';
    for (let attempt = 0; ; attempt++) {
      const old = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
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
        ...writeAttributes(type, 'UPDATE', options.subresource ?? '', options, context, updateOptions(options)),
        name,
        namespace: attributeNamespace(type, namespace, oldObject),
        oldObject,
      };
      const mutated = (yield { phase: 'mutate', attributes: { ...base, object: input } }) ?? input;
      const updated = this.planUpdate(type, old, mutated, options.subresource);
      yield { phase: 'validate', attributes: { ...base, object: asVersion(type, updated) } };
      const latest = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
      if (!latest) throw notFound(target);
      // Stored objects are replaced, never changed in place: identity tells whether someone wrote meanwhile.
      if (latest !== old) {
        if (pinned || attempt >= ADMISSION_RETRIES) throw conflict(target);
        continue;
      }
      return this.writer.commitUpdate(type, old, updated, options);
    }
  }

  private *patching(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: JsonValue,
    options: PatchOptions & { subresource?: UpdateSubresource },
    context: AdmissionRequestContext,
  ): AdmittedWrite<WriteResult> {
    checkPatchRequest(type, patchType, options);
    const pinned = isObject(patch) && isObject(patch.metadata) && typeof patch.metadata.resourceVersion === 'string';
    const recorded = { ...options, fieldsRecorded: patchType === 'apply' };
    for (let attempt = 0; ; attempt++) {
      const old = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
      if (!old) {
        if (patchType !== 'apply') throw notFound({ group: type.group, kind: type.plural, name });
        checkApplyConfiguration(type, patch, namespace, name);
        const created = this.applied(type, undefined, applyCreateBody(name, patch), options);
        return yield* this.creating(type, namespace, created, recorded, context);
      }
      // Outside the retry: an apply conflict between managers is final.
      const patched = this.patched(type, old, patchType, patch, options);
      try {
        return yield* this.updating(type, namespace, name, patched, recorded, context);
      } catch (error) {
        // A patch applies to whatever is current: a conflict from a concurrent write means try again.
        const retry = error instanceof ApiError && error.code === 409 && !pinned && attempt < ADMISSION_RETRIES;
        if (!retry) throw error;
      }
    }
  }

  private *deleting(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): AdmittedWrite<WriteResult> {
    const old = this.store.get(storeKey(type), storeNamespace(type, namespace), name);
    if (!old) throw notFound({ group: type.group, kind: type.plural, name });
    const oldObject = asVersion(type, old);
    const attributes: AdmissionAttributes = {
      ...writeAttributes(type, 'DELETE', '', options, context, deleteOptionsObject(options)),
      name,
      namespace: attributeNamespace(type, namespace, oldObject),
      oldObject,
    };
    yield { phase: 'mutate', attributes };
    yield { phase: 'validate', attributes };
    return this.writer.commitDelete(type, namespace, name, options);
  }

  private *deletingCollection(
    type: ResourceType,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
    context: AdmissionRequestContext,
  ): AdmittedWrite<ListResult> {
    const { items } = this.list(type, namespace, {
      labelSelector: listOptions.labelSelector,
      fieldSelector: listOptions.fieldSelector,
    });
    const deleted: JsonObject[] = [];
    for (const item of items) {
      const meta = metadataOf(item);
      const result = yield* this.deleting(
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

  /** System metadata and every check a create makes before anything is stored. */
  private planCreate(
    type: ResourceType,
    namespace: string | undefined,
    body: JsonObject,
    user: UserInfo,
  ): PreparedCreate {
    const defaulted = defaultedBySchema(type, withAdmissionPolicyDefaults(type, body));
    const prepare = () =>
      prepareCreate(type, storeNamespace(type, namespace) || undefined, defaulted, this.now(), user);
    let prepared = prepare();
    // A generated name already taken gets another, as Kubernetes does since 1.31 (RetryGenerateName).
    const generated = prepared.name !== metadataOf(body).name;
    for (
      let attempt = 1;
      generated && attempt < GENERATE_NAME_ATTEMPTS && this.writer.exists(type, namespace, prepared.name);
      attempt++
    )
      prepared = prepare();
    checkAgainstSchema(type, prepared.object);
    this.writer.checkCreatable(type, namespace, prepared.name);
    if (storeKey(type) === CRD_RESOURCE) checkCrd(prepared.object);
    checkMatchConditions(type, prepared.object);
    checkAdmissionPolicy(type, prepared.object);
    return prepared;
  }

  /** The object an update would store, after every check an update makes before admission. */
  private planUpdate(
    type: ResourceType,
    old: JsonObject,
    body: JsonObject,
    subresource: UpdateSubresource | undefined,
  ): JsonObject {
    const updated = prepareUpdate(
      type,
      old,
      defaultedBySchema(type, withAdmissionPolicyDefaults(type, body)),
      subresource,
      this.now(),
    );
    checkAgainstSchema(type, updated);
    if (storeKey(type) === CRD_RESOURCE) checkCrd(updated);
    checkMatchConditions(type, updated);
    checkAdmissionPolicy(type, updated);
    return updated;
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
    context: AdmissionRequestContext,
  ): JsonObject {
    if (options.fieldsRecorded) return body;
    const manager = options.fieldManager ?? managerFromUserAgent(context.userAgent);
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
}
