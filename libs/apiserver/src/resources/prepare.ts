/**
 * What kube's registry strategies do to an object before it is stored: system metadata on create,
 * preserved fields and the generation bump on update, status resets for status subresources.
 */
import { deepEqual, isObject, type JsonObject } from '@edict/foundation';
import { randomUUID } from 'node:crypto';
import { apiVersionOf, groupResourceKey, type ResourceType } from '../registry/resource-type';
import { ApiError, badRequest, invalid, type StatusCause } from '../status';
import type { UserInfo } from '../admission/types';
import { isCsrType, prepareCsrCreate, prepareCsrUpdate } from './certificate-signing-requests';
import { generatedName, validateName } from './names';
import { podResizeProblems, resizedPod } from './pod-resize';

/** Kube's RFC 3339 timestamps have second precision. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function metadataOf(object: JsonObject): JsonObject {
  return isObject(object.metadata) ? object.metadata : {};
}

/** Checks `apiVersion`/`kind` of a request body against the URL's type (kube fills them in when absent). */
export function checkTypeMeta(type: ResourceType, body: JsonObject): void {
  const apiVersion = apiVersionOf(type);
  if (body.kind !== undefined && body.kind !== type.kind) {
    throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${type.kind})`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
}

/** The status a type starts with when its status is owned by a subresource. */
function initialStatus(type: ResourceType): JsonObject | undefined {
  if (type.group === '' && type.plural === 'namespaces') return { phase: 'Active' };
  if (type.group === '' && type.plural === 'pods') return { phase: 'Pending' };
  return undefined;
}

export interface PreparedCreate {
  readonly object: JsonObject;
  readonly name: string;
}

export function prepareCreate(
  type: ResourceType,
  namespace: string | undefined,
  body: JsonObject,
  now: Date,
  user: UserInfo,
): PreparedCreate {
  checkTypeMeta(type, body);
  const metadata = { ...metadataOf(body) };
  if (type.namespaced) {
    if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.namespace = namespace!;
  } else {
    delete metadata.namespace;
  }
  if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== '') {
    throw new ApiError(500, 'InternalError', 'resourceVersion should not be set on objects to be created');
  }
  let name = typeof metadata.name === 'string' ? metadata.name : '';
  const target = { group: type.group, kind: type.kind, name };
  if (name === '') {
    if (typeof metadata.generateName !== 'string' || metadata.generateName === '') {
      throw invalid(target, [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: name or generateName is required',
          field: 'metadata.name',
        },
      ]);
    }
    name = generatedName(metadata.generateName);
  }
  const causes: StatusCause[] = [];
  const nameProblem = validateName(groupResourceKey(type.group, type.plural), type.builtin, name);
  if (nameProblem) causes.push(nameProblem);
  causes.push(...labelProblems(metadata));
  if (causes.length > 0) throw invalid({ ...target, name }, causes);

  metadata.name = name;
  metadata.uid = randomUUID();
  metadata.creationTimestamp = timestamp(now);
  if (type.tracksGeneration) metadata.generation = 1;
  else delete metadata.generation;
  delete metadata.deletionTimestamp;
  delete metadata.deletionGracePeriodSeconds;
  if (type.group === '' && type.plural === 'namespaces') {
    metadata.labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), 'kubernetes.io/metadata.name': name };
  }

  let object: JsonObject = mergeStringData(type, {
    ...body,
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata,
  });
  if (type.subresources.includes('status')) {
    const status = initialStatus(type);
    if (status) object.status = status;
    else delete object.status;
  }
  if (type.group === '' && type.plural === 'namespaces') object.spec = { finalizers: ['kubernetes'] };
  if (isCsrType(type)) object = prepareCsrCreate(object, user);
  return { object, name };
}

/**
 * A Secret's `stringData` is write-only: kube's v1 conversion base64-encodes each entry into `data`
 * (a `stringData` key wins over the same `data` key) and never stores `stringData` itself.
 */
function mergeStringData(type: ResourceType, object: JsonObject): JsonObject {
  if (type.group !== '' || type.plural !== 'secrets' || !isObject(object.stringData)) return object;
  const { stringData, ...rest } = object;
  const data: JsonObject = { ...(isObject(rest.data) ? rest.data : {}) };
  for (const [key, value] of Object.entries(stringData as JsonObject)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  return { ...rest, data };
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function labelProblems(metadata: JsonObject): StatusCause[] {
  if (metadata.labels === undefined || metadata.labels === null) return [];
  if (!isObject(metadata.labels)) {
    return [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: labels must be a map of strings',
        field: 'metadata.labels',
      },
    ];
  }
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(metadata.labels)) {
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: `Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      });
    }
    if (key === '')
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: 'Invalid value: "": name part must be non-empty',
      });
  }
  return causes;
}

/** Subresources written as the whole object, of which they replace one part. */
export type UpdateSubresource = 'status' | 'ephemeralcontainers' | 'approval' | 'resize';

/**
 * The object an update stores: the new body with the old object's system metadata, the old status
 * when status belongs to a subresource (or everything but status, for a `/status` update), and a
 * bumped generation when anything outside metadata changed.
 */
export function prepareUpdate(
  type: ResourceType,
  old: JsonObject,
  body: JsonObject,
  subresource: UpdateSubresource | undefined,
  now: Date,
): JsonObject {
  checkTypeMeta(type, body);
  const oldMeta = metadataOf(old);
  const newMeta = metadataOf(body);
  if (newMeta.name !== undefined && newMeta.name !== oldMeta.name) {
    throw badRequest(
      `the name of the object (${String(newMeta.name)}) does not match the name on the URL (${String(oldMeta.name)})`,
    );
  }
  if (
    type.namespaced &&
    newMeta.namespace !== undefined &&
    newMeta.namespace !== '' &&
    newMeta.namespace !== oldMeta.namespace
  ) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  let object: JsonObject;
  if (subresource === 'ephemeralcontainers') {
    // Only the Pod's ephemeral containers change through this subresource.
    const oldSpec = isObject(old.spec) ? old.spec : {};
    const newSpec = isObject(body.spec) ? body.spec : {};
    const spec: JsonObject = { ...oldSpec };
    if (newSpec.ephemeralContainers === undefined) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = newSpec.ephemeralContainers;
    object = { ...old, metadata: { ...oldMeta }, spec };
  } else if (subresource === 'resize') {
    // Only the containers' resources and resize policies change through pods/resize.
    object = resizedPod(old, body, oldMeta);
    const causes = podResizeProblems(old, object);
    if (causes.length > 0) throw invalid({ group: type.group, kind: type.kind, name: String(oldMeta.name) }, causes);
  } else if (subresource === 'status' || subresource === 'approval') {
    object = { ...old, metadata: { ...oldMeta } };
    // Built-in status strategies reset the spec, not the annotations: the Deployment controller
    // records its revision along with the status. Custom resources keep all their metadata.
    if (type.builtin && subresource === 'status') {
      if (newMeta.annotations === undefined) delete (object.metadata as JsonObject).annotations;
      else (object.metadata as JsonObject).annotations = newMeta.annotations;
    }
    if (body.status === undefined) delete object.status;
    else object.status = body.status;
  } else {
    const causes = labelProblems(newMeta);
    if (causes.length > 0) throw invalid({ group: type.group, kind: type.kind, name: String(oldMeta.name) }, causes);
    const metadata: JsonObject = { ...newMeta };
    for (const key of [
      'name',
      'namespace',
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
    ]) {
      if (oldMeta[key] === undefined) delete metadata[key];
      else metadata[key] = oldMeta[key]!;
    }
    object = mergeStringData(type, { ...body, apiVersion: apiVersionOf(type), kind: type.kind, metadata });
    if (type.subresources.includes('status')) {
      if (old.status === undefined) delete object.status;
      else object.status = old.status;
    }
    if (type.group === '' && type.plural === 'namespaces') object.spec = old.spec ?? { finalizers: ['kubernetes'] };
  }
  if (isCsrType(type)) {
    object = prepareCsrUpdate(
      old,
      object,
      subresource === 'ephemeralcontainers' || subresource === 'resize' ? undefined : subresource,
      timestamp(now),
    );
  }
  // With a status subresource, status is not part of the desired state the generation counts.
  const ignored = type.subresources.includes('status') ? ['status'] : [];
  if (type.tracksGeneration && !sameOutsideMetadata(old, object, ignored)) {
    (object.metadata as JsonObject).generation = Number(oldMeta.generation ?? 0) + 1;
  }
  return object;
}

function sameOutsideMetadata(a: JsonObject, b: JsonObject, ignored: readonly string[] = []): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of ignored) keys.delete(key);
  keys.delete('metadata');
  keys.delete('apiVersion');
  keys.delete('kind');
  return [...keys].every((key) => deepEqual(a[key], b[key]));
}

/** Whether an update changes nothing but the resourceVersion: kube then skips the write. */
export function isNoOpUpdate(old: JsonObject, updated: JsonObject): boolean {
  const { resourceVersion: _old, ...oldMeta } = metadataOf(old);
  const { resourceVersion: _new, ...newMeta } = metadataOf(updated);
  return sameOutsideMetadata(old, updated) && deepEqual(oldMeta, newMeta);
}
