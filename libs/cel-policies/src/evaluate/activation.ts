import { AccessReviews, CelAuthorizer, CelResourceCheck, toCel } from '@edict/cel';
import type { JsonObject, JsonValue } from '@edict/foundation';
import type { AdmissionAttributes } from '@edict/native-policies';

/** CEL's view of a JSON value, converted once per object (a request's objects are never modified). */
export function celValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return toCel(value as JsonValue);
  let converted = converted_.get(value);
  if (converted === undefined) {
    converted = toCel(value as JsonObject);
    converted_.set(value, converted);
  }
  return converted;
}

const converted_ = new WeakMap<object, unknown>();

/** `authorizer` for the requesting user, with `authorizer.requestResource` for the request's resource. */
export function authorizerFor(attributes: AdmissionAttributes, reviews: AccessReviews): CelAuthorizer {
  const info = attributes.userInfo ?? {};
  const subject = {
    user: info.username ?? '',
    ...(info.groups ? { groups: info.groups } : {}),
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
