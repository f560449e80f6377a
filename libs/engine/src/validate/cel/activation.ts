import { AccessReviews, CelAuthorizer, CelResourceCheck, toCel } from '@edict/cel';
import { isObject, type JsonObject, type KubeObject } from '@edict/foundation';
import type { ResourceLoader } from '../../core/loaders';
import type { ResourceRequest } from '../../core/types';

/** The namespace Kubernetes evaluates a request in: none for cluster-scoped objects and for Namespaces. */
export function requestNamespace(resource: KubeObject): string {
  if (resource.kind === 'Namespace' && (resource.apiVersion === 'v1' || resource.apiVersion === '')) return '';
  return resource.metadata?.namespace ?? '';
}

/**
 * `namespaceObject`: the request namespace's object from the cluster. Without one (the CLI) it is
 * the name alone, with the labels the caller knows, as Kyverno builds it offline.
 */
export async function loadNamespaceObject(
  namespace: string,
  request: ResourceRequest,
  resources: ResourceLoader | undefined,
): Promise<KubeObject | undefined> {
  if (!namespace) return undefined;
  if (!resources) {
    const metadata: KubeObject['metadata'] = { name: namespace };
    if (request.namespaceLabels) metadata.labels = request.namespaceLabels;
    return { apiVersion: 'v1', kind: 'Namespace', metadata };
  }
  const object = await resources.get('v1', 'Namespace', undefined, namespace);
  if (!object) throw new Error(`namespaces "${namespace}" not found`);
  return object;
}

/**
 * `request`: the admission request's attributes, as Kubernetes exposes them to CEL (without the
 * objects, which are `object` and `oldObject`). Background scans and the CLI have no admission
 * request: its attributes are built from the resource and the request.
 */
export function requestAttributes(request: ResourceRequest, resource: KubeObject): JsonObject {
  if (request.admissionRequest) {
    const { object: _object, oldObject: _oldObject, ...attributes } = request.admissionRequest;
    return attributes;
  }
  const [group, version] = splitApiVersion(resource.apiVersion);
  const attributes: JsonObject = {
    kind: { group, version, kind: resource.kind },
    operation: request.operation,
    name: resource.metadata?.name ?? '',
    namespace: resource.metadata?.namespace ?? '',
    dryRun: request.dryRun ?? false,
  };
  if (request.user?.userInfo) attributes.userInfo = request.user.userInfo as JsonObject;
  if (request.subresource) attributes.subResource = request.subresource;
  return attributes;
}

/** `authorizer`, for the requesting user; `authorizer.requestResource` when the request names its resource. */
export function authorizerFor(request: ResourceRequest, reviews: AccessReviews): CelAuthorizer {
  const info = request.user?.userInfo ?? {};
  const subject = {
    user: info.username ?? '',
    ...(info.groups ? { groups: info.groups } : {}),
    ...(info.uid ? { uid: info.uid } : {}),
    ...(info.extra ? { extra: info.extra } : {}),
  };
  const authorizer = new CelAuthorizer(reviews, subject);
  const admission = request.admissionRequest;
  const resource = admission?.resource;
  if (!isObject(resource)) return authorizer;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const check = new CelResourceCheck(authorizer, {
    group: text(resource.group),
    version: text(resource.version),
    resource: text(resource.resource),
    subresource: text(admission?.subResource),
    namespace: text(admission?.namespace),
    name: text(admission?.name),
  });
  return new CelAuthorizer(reviews, subject, check);
}

/** CEL's view of an object, converted once per object (a request's objects are never modified). */
export function celObject(object: KubeObject | undefined): unknown {
  if (!object) return null;
  let converted = converted_.get(object);
  if (converted === undefined) {
    converted = toCel(object);
    converted_.set(object, converted);
  }
  return converted;
}

const converted_ = new WeakMap<object, unknown>();

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
