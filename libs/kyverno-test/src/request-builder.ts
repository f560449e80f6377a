import { type Operation, type RequestUser, type ResourceRequest } from '@edict/engine';
import { cloneJson, isObject, type JsonObject, type JsonValue, type KubeObject } from '@edict/foundation';
import type { SubresourceMapping } from './types';
import type { ValuesLookup } from './values-lookup';

export interface RequestInputs {
  values: ValuesLookup;
  user?: RequestUser;
  subresources: readonly SubresourceMapping[];
}

/**
 * The admission request Kyverno's CLI synthesises for one policy and one resource: CREATE unless the
 * values ask for UPDATE (old object = new object) or DELETE (only an old object); values named
 * `request.object.*` / `request.oldObject.*` are written into those objects; namespace labels come
 * from the values' namespaceSelector; a subresource kind is requested as its parent's subresource.
 */
export function buildRequest(
  policyName: string,
  resource: KubeObject,
  inputs: RequestInputs,
  operationOverride?: Operation,
): ResourceRequest {
  const name = resource.metadata.name ?? '';
  const operation = operationOverride ?? inputs.values.operation(policyName, name);
  const values = inputs.values.resourceValues(policyName, name);
  const request: ResourceRequest = { operation };
  if (operation !== 'DELETE') request.resource = withInjectedValues(resource, values, 'request.object.');
  if (operation === 'UPDATE' || operation === 'DELETE')
    request.oldResource = withInjectedValues(resource, values, 'request.oldObject.');
  if (inputs.user) request.user = inputs.user;
  const labels = inputs.values.namespaceLabels(resource.metadata.namespace);
  if (labels) request.namespaceLabels = labels;
  const mapping = findSubresource(resource, inputs.subresources);
  if (mapping) {
    const { group, version, kind } = mapping.parent;
    request.requestKind = { group, version, kind };
    request.subresource = mapping.subresource.name.split('/')[1] ?? '';
  }
  return request;
}

/** Copies the resource only when some value actually targets it. */
function withInjectedValues(resource: KubeObject, values: Record<string, JsonValue>, prefix: string): KubeObject {
  const keys = Object.keys(values).filter((key) => key.startsWith(prefix) && key.length > prefix.length);
  if (keys.length === 0) return resource;
  const copy = cloneJson(resource);
  for (const key of keys) setPath(copy, key.slice(prefix.length).split('.'), values[key]);
  return copy;
}

function setPath(target: JsonObject, path: string[], value: JsonValue): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (!isObject(next)) node[segment] = {};
    node = node[segment] as JsonObject;
  }
  node[path[path.length - 1]] = value;
}

function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function findSubresource(
  resource: KubeObject,
  mappings: readonly SubresourceMapping[],
): SubresourceMapping | undefined {
  const { group, version } = groupVersion(resource.apiVersion);
  return mappings.find(
    ({ subresource }) =>
      subresource.kind === resource.kind && subresource.group === group && subresource.version === version,
  );
}

export { groupVersion };
