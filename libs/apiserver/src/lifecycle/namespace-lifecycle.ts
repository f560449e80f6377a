/** Namespace lifecycle: a namespace removed takes its contents with it (kube's namespace controller). */
import type { JsonObject } from '@edict/foundation';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';
import { storageKey } from '../resources/event-versions';
import { metadataOf } from '../resources/prepare';
import type { ObjectStore } from '../store/object-store';
import type { StorageObserver } from './storage-observer';

export const NAMESPACES = groupResourceKey('', 'namespaces');

export class NamespaceLifecycle implements StorageObserver {
  constructor(private readonly store: ObjectStore) {}

  removing(type: ResourceType, object: JsonObject): void {
    if (storageKey(type) !== NAMESPACES) return;
    const namespace = metadataOf(object).name as string;
    for (const groupResource of this.store.groupResources()) {
      if (groupResource === NAMESPACES) continue;
      for (const item of this.store.list(groupResource, namespace)) {
        const meta = metadataOf(item);
        if (meta.namespace !== namespace) continue;
        this.store.remove(groupResource, {
          ...item,
          metadata: { ...meta, resourceVersion: String(this.store.nextResourceVersion()) },
        });
      }
    }
  }
}
