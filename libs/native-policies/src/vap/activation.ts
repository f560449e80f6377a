/** The CEL variables of an admission policy call, as kube-apiserver binds them. */
import { AccessReviews, CelAuthorizer, CelResourceCheck, toCel } from '@edict/cel';
import { isObject, type JsonObject } from '@edict/foundation';
import type { AdmissionAttributes } from '../types';

/** CEL's view of an object, converted once per object (a request's objects are never modified). */
export function celValue(object: JsonObject | null | undefined): unknown {
  if (!object) return null;
  let converted = cache.get(object);
  if (converted === undefined) {
    converted = toCel(object);
    cache.set(object, converted);
  }
  return converted;
}

const cache = new WeakMap<object, unknown>();

const NAMESPACE_METADATA = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'finalizers',
];

/**
 * `namespaceObject`: the namespace as kube exposes it to CEL (cel.CreateNamespaceObject): its spec,
 * status and the metadata fields above, without managedFields or owner references.
 */
export function namespaceObjectFor(namespace: JsonObject | null | undefined): JsonObject | null {
  if (!namespace) return null;
  const metadata = isObject(namespace.metadata) ? namespace.metadata : {};
  const kept: JsonObject = {};
  for (const key of NAMESPACE_METADATA) if (metadata[key] !== undefined) kept[key] = metadata[key]!;
  return {
    metadata: kept,
    spec: isObject(namespace.spec) ? namespace.spec : {},
    status: isObject(namespace.status) ? namespace.status : {},
  };
}

/** `authorizer`, for the requesting user, with `authorizer.requestResource` for the request's resource. */
export function authorizerFor(attributes: AdmissionAttributes, reviews: AccessReviews): CelAuthorizer {
  const info = attributes.userInfo ?? {};
  const subject = {
    user: info.username ?? '',
    ...(info.groups ? { groups: [...info.groups] } : {}),
    ...(info.uid ? { uid: info.uid } : {}),
    ...(info.extra ? { extra: info.extra } : {}),
  };
  const authorizer = new CelAuthorizer(reviews, subject);
  const check = new CelResourceCheck(authorizer, {
    group: attributes.resource.group,
    version: attributes.resource.version,
    resource: attributes.resource.resource,
    subresource: attributes.subresource,
    namespace: attributes.namespace,
    name: attributes.name,
  });
  return new CelAuthorizer(reviews, subject, check);
}
