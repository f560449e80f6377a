/** Where a type's objects are stored, and a stored object as served at a type's version. */
import type { JsonObject } from '@edict/foundation';
import { apiVersionOf, groupResourceKey, type ResourceType } from '../registry/resource-type';
import { isEventsV1Type, storageKey, toCoreEvent, toEventsV1 } from './event-versions';

const CORE_EVENTS = groupResourceKey('', 'events');

/** The store's key for a type's objects (both Event groups share the core one). */
export function storeKey(type: ResourceType): string {
  return storageKey(type);
}

/** The namespace a type's object is stored under ('' for cluster-scoped types). */
export function storeNamespace(type: ResourceType, namespace: string | undefined): string {
  return type.namespaced ? (namespace ?? '') : '';
}

/** A stored object as served at `type`'s version (CRD versions share storage without conversion). */
export function asVersion(type: ResourceType, object: JsonObject): JsonObject {
  if (storeKey(type) === CORE_EVENTS) return isEventsV1Type(type) ? toEventsV1(object) : toCoreEvent(object);
  const apiVersion = apiVersionOf(type);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}
