/**
 * CRD lifecycle: a stored CRD is Established and its kinds served at once (discovery, REST,
 * OpenAPI); a removed one takes its custom resources along and its kinds stop being served.
 */
import type { JsonObject } from '@edict/foundation';
import { establishedStatus, typesFromCrd } from '../registry/crd';
import type { ResourceRegistry } from '../registry/registry';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';
import { storageKey } from '../resources/event-versions';
import { metadataOf, timestamp } from '../resources/prepare';
import type { ObjectStore } from '../store/object-store';
import type { StorageObserver } from './storage-observer';

export const CRD_RESOURCE = groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions');

export class CrdLifecycle implements StorageObserver {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly now: () => Date = () => new Date(),
  ) {}

  storing(type: ResourceType, object: JsonObject): JsonObject {
    if (storageKey(type) !== CRD_RESOURCE) return object;
    const established = { ...object, status: establishedStatus(object, timestamp(this.now())) };
    this.registry.setCustom(metadataOf(established).name as string, typesFromCrd(established));
    return established;
  }

  removing(type: ResourceType, crd: JsonObject): void {
    if (storageKey(type) !== CRD_RESOURCE) return;
    const spec = crd.spec as JsonObject;
    const groupResource = groupResourceKey(spec.group as string, (spec.names as JsonObject).plural as string);
    for (const object of this.store.list(groupResource)) {
      const meta = metadataOf(object);
      this.store.remove(groupResource, {
        ...object,
        metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) },
      });
    }
    this.registry.removeCustom(metadataOf(crd).name as string);
  }
}
