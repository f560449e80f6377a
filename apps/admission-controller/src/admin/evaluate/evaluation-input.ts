/**
 * The body of `POST /admin/evaluate`, checked and turned into the admission request the webhooks
 * would receive. Three shapes are accepted:
 *  - a whole `admission.k8s.io/v1` AdmissionReview (as the API server sends it);
 *  - `{resource, oldResource?, operation?, userInfo?, namespaceLabels?, subResource?, dryRun?}`;
 *  - a bare Kubernetes object (`kubectl get pod x -o json`), evaluated as a CREATE.
 * Problems come back naming the field (`resource.kind: ...`), never as an exception.
 */
import { randomUUID } from 'node:crypto';
import { parseAdmissionReview, type AdmissionRequest } from '@edict/admission';
import { type Operation, type UserInfo } from '@edict/engine';
import { type KubeObject, pluralOfKind } from '@edict/foundation';

export interface EvaluationInput {
  readonly request: AdmissionRequest;
  /** Labels given with the body; otherwise the namespace's labels as the cluster has them. */
  readonly namespaceLabels?: Record<string, string>;
  /** Which of the three body shapes it was. */
  readonly source: 'admission-review' | 'resource';
}

export type ParsedEvaluationInput = ({ ok: true } & EvaluationInput) | { ok: false; message: string };

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const WRAPPER_FIELDS = ['resource', 'oldResource', 'operation', 'userInfo', 'namespaceLabels', 'subResource', 'dryRun'];

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class InputError extends Error {}

export function parseEvaluationInput(body: unknown): ParsedEvaluationInput {
  if (!isRecord(body)) return { ok: false, message: 'body: must be a JSON object' };
  try {
    if (body['kind'] === 'AdmissionReview') {
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok) return { ok: false, message: parsed.message };
      return { ok: true, request: parsed.review.request, source: 'admission-review' };
    }
    if ('resource' in body || 'oldResource' in body) return { ok: true, ...fromWrapper(body) };
    if (typeof body['kind'] === 'string' && typeof body['apiVersion'] === 'string')
      return { ok: true, ...fromWrapper({ resource: body }) };
    return {
      ok: false,
      message:
        'body: must be an AdmissionReview, an object with a `resource` field (a Kubernetes object), or a Kubernetes object',
    };
  } catch (error) {
    if (error instanceof InputError) return { ok: false, message: error.message };
    throw error;
  }
}

function fromWrapper(body: Fields): EvaluationInput {
  const unknown = Object.keys(body).filter((key) => !WRAPPER_FIELDS.includes(key));
  if (unknown.length > 0)
    throw new InputError(`${unknown[0]}: unknown field (expected one of ${WRAPPER_FIELDS.join(', ')})`);

  const operation = body['operation'] ?? (body['resource'] === undefined ? 'DELETE' : 'CREATE');
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation as Operation))
    throw new InputError(`operation: must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(operation)}`);
  const resource = optionalObject(body, 'resource');
  const oldResource = optionalObject(body, 'oldResource');
  if (operation !== 'DELETE' && !resource) throw new InputError(`resource: required for ${operation}`);
  if (operation === 'DELETE' && !oldResource && !resource)
    throw new InputError('oldResource: required for DELETE (the object being deleted)');
  if (resource && oldResource && resource.kind !== oldResource.kind)
    throw new InputError(`oldResource.kind: must equal resource.kind (${resource.kind}), got ${oldResource.kind}`);
  const subject = (operation === 'DELETE' ? (oldResource ?? resource) : resource) as KubeObject;
  const userInfo = optionalUserInfo(body['userInfo']);
  const namespaceLabels = optionalStringMap(body['namespaceLabels'], 'namespaceLabels');
  const subResource = optionalString(body['subResource'], 'subResource');
  if (body['dryRun'] !== undefined && typeof body['dryRun'] !== 'boolean')
    throw new InputError('dryRun: must be a boolean');

  const [group, version] = splitApiVersion(subject.apiVersion);
  const kind = { group, version, kind: subject.kind };
  const gvr = { group, version, resource: pluralOfKind(subject.kind) };
  const metadata = subject.metadata ?? {};
  const request: AdmissionRequest = {
    uid: `admin-evaluate-${randomUUID()}`,
    kind,
    resource: gvr,
    requestKind: kind,
    requestResource: gvr,
    name: typeof metadata.name === 'string' ? metadata.name : '',
    operation: operation as Operation,
    userInfo: userInfo ?? {},
    object: operation === 'DELETE' ? null : (resource ?? null),
    oldObject: oldResource ?? null,
    dryRun: body['dryRun'] === true,
  };
  if (typeof metadata.namespace === 'string' && metadata.namespace !== '') request.namespace = metadata.namespace;
  if (subResource) {
    request.subResource = subResource;
    request.requestSubResource = subResource;
  }
  return { request, source: 'resource', ...(namespaceLabels ? { namespaceLabels } : {}) };
}

/** A Kubernetes object at `field`: apiVersion and kind non-empty strings, metadata an object. */
function optionalObject(body: Fields, field: string): KubeObject | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new InputError(`${field}: must be a Kubernetes object`);
  for (const key of ['apiVersion', 'kind'])
    if (typeof value[key] !== 'string' || value[key] === '')
      throw new InputError(`${field}.${key}: must be a non-empty string`);
  if (value['metadata'] !== undefined && !isRecord(value['metadata']))
    throw new InputError(`${field}.metadata: must be an object`);
  const metadata = (value['metadata'] ?? {}) as Fields;
  for (const key of ['name', 'namespace'])
    if (metadata[key] !== undefined && typeof metadata[key] !== 'string')
      throw new InputError(`${field}.metadata.${key}: must be a string`);
  for (const key of ['labels', 'annotations']) optionalStringMap(metadata[key], `${field}.metadata.${key}`);
  // The engine reads metadata without checking it is there, so an object without one gets an empty one.
  return (value['metadata'] === undefined ? { ...value, metadata: {} } : value) as KubeObject;
}

function optionalUserInfo(value: unknown): UserInfo | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new InputError('userInfo: must be an object');
  for (const key of Object.keys(value))
    if (!['username', 'uid', 'groups', 'extra'].includes(key))
      throw new InputError(`userInfo.${key}: unknown field (expected username, uid, groups, extra)`);
  optionalString(value['username'], 'userInfo.username');
  optionalString(value['uid'], 'userInfo.uid');
  const groups = value['groups'];
  if (groups !== undefined && (!Array.isArray(groups) || groups.some((group) => typeof group !== 'string')))
    throw new InputError('userInfo.groups: must be a list of strings');
  const extra = value['extra'];
  if (extra !== undefined) {
    if (!isRecord(extra)) throw new InputError('userInfo.extra: must be an object of string lists');
    for (const [key, list] of Object.entries(extra))
      if (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))
        throw new InputError(`userInfo.extra.${key}: must be a list of strings`);
  }
  return value as UserInfo;
}

function optionalStringMap(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new InputError(`${field}: must be an object of strings`);
  for (const [key, item] of Object.entries(value))
    if (typeof item !== 'string') throw new InputError(`${field}.${key}: must be a string`);
  return value as Record<string, string>;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InputError(`${field}: must be a string`);
  return value;
}

/** `apps/v1` → [`apps`, `v1`]; `v1` → [``, `v1`]. */
function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/**
 * The resource name of a kind by English plural rules (no discovery here). Policies select by kind,
 * so this only shows up as `request.resource` to policies that read it.
 */
/**
 * A request built from a bare resource, completed with what API discovery says of its kind, as
 * the API server would have it: the real resource name, and for a namespaced kind sent without a
 * namespace, `default` (where kubectl creates it) on the request and the object.
 */
export function withDiscoveredResource(
  request: AdmissionRequest,
  found: { resource: string; namespaced: boolean },
): AdmissionRequest {
  const resource = { ...request.resource, resource: found.resource };
  const completed: AdmissionRequest = { ...request, resource, requestResource: resource };
  if (found.namespaced && !request.namespace) {
    completed.namespace = 'default';
    const placed = (object: unknown) =>
      object && typeof object === 'object'
        ? { ...object, metadata: { ...((object as KubeObject).metadata ?? {}), namespace: 'default' } }
        : object;
    completed.object = placed(request.object) as AdmissionRequest['object'];
    completed.oldObject = placed(request.oldObject) as AdmissionRequest['oldObject'];
  }
  return completed;
}
