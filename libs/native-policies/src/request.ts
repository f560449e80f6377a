/**
 * The CEL `request` variable: the AdmissionRequest kube-apiserver builds for admission policies
 * (cel.CreateAdmissionRequest), as unstructured JSON: without `object`/`oldObject` (they are
 * variables of their own) and with an empty `uid`, as kube leaves it.
 */
import type { JsonObject } from '@edict/foundation';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from './types';

/** What a policy matched, when it differs from the request (matchPolicy Equivalent). */
export interface MatchedAs {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

export function celRequestOf(attributes: AdmissionAttributes, matched?: MatchedAs): JsonObject {
  const kind = matched?.kind ?? attributes.kind;
  const resource = matched?.resource ?? attributes.resource;
  const request: JsonObject = {
    uid: attributes.uid ?? '',
    kind: gvk(kind),
    resource: gvr(resource),
  };
  if (attributes.subresource) request.subResource = attributes.subresource;
  request.requestKind = gvk(attributes.kind);
  request.requestResource = gvr(attributes.resource);
  if (attributes.subresource) request.requestSubResource = attributes.subresource;
  if (attributes.name) request.name = attributes.name;
  if (attributes.namespace) request.namespace = attributes.namespace;
  request.operation = attributes.operation;
  request.userInfo = userInfoOf(attributes.userInfo);
  request.dryRun = attributes.dryRun ?? false;
  request.options = attributes.options ?? null;
  return request;
}

/** authentication/v1 UserInfo as JSON: every field omitted when empty. */
function userInfoOf(info: AdmissionAttributes['userInfo']): JsonObject {
  const out: JsonObject = {};
  if (!info) return out;
  if (info.username) out.username = info.username;
  if (info.uid) out.uid = info.uid;
  if (info.groups && info.groups.length > 0) out.groups = [...info.groups];
  if (info.extra && Object.keys(info.extra).length > 0) {
    const extra: JsonObject = {};
    for (const [key, values] of Object.entries(info.extra)) extra[key] = [...values];
    out.extra = extra;
  }
  return out;
}

function gvk(kind: GroupVersionKind): JsonObject {
  return { group: kind.group, version: kind.version, kind: kind.kind };
}

function gvr(resource: GroupVersionResource): JsonObject {
  return { group: resource.group, version: resource.version, resource: resource.resource };
}
