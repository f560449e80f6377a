/**
 * Core `v1` Events and `events.k8s.io/v1` Events are two views of one stored object, as in kube:
 * stored in the core form, served in either, with kube's field mapping (regarding ↔ involvedObject,
 * note ↔ message, reportingController ↔ reportingComponent, deprecatedSource ↔ source,
 * deprecatedFirstTimestamp/LastTimestamp/Count ↔ firstTimestamp/lastTimestamp/count).
 */
import type { JsonObject } from '@edict/foundation';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';

export const EVENTS_V1 = 'events.k8s.io/v1';
const CORE_EVENTS = groupResourceKey('', 'events');

/** [events.k8s.io/v1 field, core v1 field]; fields of the same name in both are copied as they are. */
const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

export function isEventsV1Type(type: Pick<ResourceType, 'group' | 'plural'>): boolean {
  return type.group === 'events.k8s.io' && type.plural === 'events';
}

/** Where a type's objects are stored: events.k8s.io Events share the core Events' storage. */
export function storageKey(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return isEventsV1Type(type) ? CORE_EVENTS : groupResourceKey(type.group, type.plural);
}

function rename(object: JsonObject, pairs: ReadonlyArray<readonly [string, string]>, apiVersion: string): JsonObject {
  const out: JsonObject = { ...object, apiVersion, kind: 'Event' };
  for (const [from, to] of pairs) {
    delete out[from];
    if (object[from] !== undefined) out[to] = object[from]!;
  }
  return out;
}

export function toCoreEvent(event: JsonObject): JsonObject {
  if (event.apiVersion !== EVENTS_V1) return event;
  return rename(event, RENAMED, 'v1');
}

export function toEventsV1(event: JsonObject): JsonObject {
  if (event.apiVersion !== 'v1') return event;
  return rename(
    event,
    RENAMED.map(([v1, core]) => [core, v1] as const),
    EVENTS_V1,
  );
}
