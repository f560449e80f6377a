/**
 * The garbage collector, like kube-controller-manager's: when an object is really removed, its
 * dependents whose other owners are all gone are deleted in the background (and so on down the
 * chain); dependents that still have a live owner just lose the dangling reference. An owner deleted
 * with propagationPolicy Foreground keeps its `foregroundDeletion` finalizer until its blocking
 * dependents (`blockOwnerDeletion: true`) are gone. Orphaning is done by the API server at delete.
 *
 * The collector reads the API server's cache and writes through its direct client, as the cluster
 * itself: its deletes do not pass through admission webhooks.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import {
  ApiError,
  FOREGROUND_FINALIZER,
  ownerReferencesOf,
  storageKey,
  type ApiClient,
  type ChangeEvent,
} from '@edict/apiserver';

interface Location {
  readonly groupResource: string;
  readonly namespace: string;
  readonly name: string;
}

function metadataOf(object: JsonObject): JsonObject {
  return isObject(object.metadata) ? object.metadata : {};
}

export class GarbageCollector {
  /** uids of removed owners whose dependents are still to be handled. */
  private readonly removedOwners = new Set<string>();
  /** Owners being deleted in the foreground, by uid. */
  private readonly foregroundOwners = new Map<string, Location>();
  private running: Promise<void> | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly client: ApiClient) {
    this.unsubscribe = client.cache.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.unsubscribe();
  }

  /** Resolves once every pending collection (including cascades it caused) is done. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private observe(event: ChangeEvent): void {
    const meta = metadataOf(event.object);
    const uid = typeof meta.uid === 'string' ? meta.uid : undefined;
    if (!uid) return;
    if (event.type === 'DELETED') {
      this.removedOwners.add(uid);
      this.foregroundOwners.delete(uid);
      // An owner waiting for this dependent may now be free to go.
      for (const ref of ownerReferencesOf(event.object)) {
        const location = typeof ref.uid === 'string' ? this.locate(ref, event.namespace) : undefined;
        if (location) this.checkForeground(String(ref.uid), location);
      }
    } else if (
      meta.deletionTimestamp !== undefined &&
      Array.isArray(meta.finalizers) &&
      meta.finalizers.includes(FOREGROUND_FINALIZER)
    ) {
      this.checkForeground(uid, {
        groupResource: event.groupResource,
        namespace: event.namespace,
        name: String(meta.name),
      });
    } else {
      return;
    }
    this.schedule();
  }

  private checkForeground(uid: string, location: Location): void {
    const object = this.client.cache.get(location.groupResource, location.namespace, location.name);
    const meta = object ? metadataOf(object) : undefined;
    if (meta?.uid !== uid || meta.deletionTimestamp === undefined) return;
    if (Array.isArray(meta.finalizers) && meta.finalizers.includes(FOREGROUND_FINALIZER)) {
      this.foregroundOwners.set(uid, location);
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.running) return;
    this.running = new Promise<void>((resolve) => {
      setImmediate(() => {
        try {
          this.drain();
        } finally {
          this.running = undefined;
          resolve();
        }
      });
    });
  }

  /** Works until no owner is pending; the deletes it makes queue further work synchronously. */
  private drain(): void {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      const [removed] = this.removedOwners;
      if (removed !== undefined) {
        this.removedOwners.delete(removed);
        this.collectDependents(removed);
        continue;
      }
      const [foreground] = this.foregroundOwners;
      if (foreground === undefined) return;
      this.foregroundOwners.delete(foreground[0]);
      this.advanceForeground(foreground[0], foreground[1]);
    }
  }

  private collectDependents(ownerUid: string): void {
    for (const { groupResource, object } of this.client.cache.dependentsOf(ownerUid)) {
      const namespace = String(metadataOf(object).namespace ?? '');
      const otherOwnerAlive = ownerReferencesOf(object).some(
        (ref) => ref.uid !== ownerUid && this.ownerExists(ref, namespace),
      );
      if (otherOwnerAlive) {
        this.client.removeOwnerReference(groupResource, object, ownerUid);
      } else {
        this.deleteObject(object, 'Background');
      }
    }
  }

  private advanceForeground(ownerUid: string, location: Location): void {
    const owner = this.client.cache.get(location.groupResource, location.namespace, location.name);
    if (!owner || metadataOf(owner).uid !== ownerUid) return;
    const blocking = this.client.cache
      .dependentsOf(ownerUid)
      .filter(({ object }) =>
        ownerReferencesOf(object).some((ref) => ref.uid === ownerUid && ref.blockOwnerDeletion === true),
      );
    for (const { object } of this.client.cache.dependentsOf(ownerUid)) {
      if (metadataOf(object).deletionTimestamp === undefined) {
        const isBlocking = blocking.some((entry) => entry.object === object);
        this.deleteObject(object, isBlocking ? 'Foreground' : 'Background');
      }
    }
    const stillBlocking = this.client.cache
      .dependentsOf(ownerUid)
      .some(({ object }) =>
        ownerReferencesOf(object).some((ref) => ref.uid === ownerUid && ref.blockOwnerDeletion === true),
      );
    if (stillBlocking) return;
    const current = this.client.cache.get(location.groupResource, location.namespace, location.name)!;
    if (!this.typeOfObject(current)) return;
    const meta = metadataOf(current);
    const finalizers = (meta.finalizers as string[]).filter((f) => f !== FOREGROUND_FINALIZER);
    this.ignoringGone(() => this.client.update({ ...current, metadata: { ...meta, finalizers } }));
  }

  private deleteObject(object: JsonObject, propagationPolicy: 'Background' | 'Foreground'): void {
    if (!this.typeOfObject(object)) return;
    const meta = metadataOf(object);
    const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
    this.ignoringGone(() =>
      this.client.delete(String(object.apiVersion), String(object.kind), String(meta.name), namespace, {
        propagationPolicy,
        preconditions: { uid: String(meta.uid) },
      }),
    );
  }

  /** 404s and 409s mean someone else got there first: nothing left to do. */
  private ignoringGone(write: () => unknown): void {
    try {
      write();
    } catch (error) {
      if (!(error instanceof ApiError && (error.code === 404 || error.code === 409))) throw error;
    }
  }

  private ownerExists(ref: JsonObject, namespace: string): boolean {
    const location = this.locate(ref, namespace);
    // Owners of kinds this server does not serve are assumed alive (kube would retry, not delete).
    if (!location) return true;
    const owner = this.client.cache.get(location.groupResource, location.namespace, location.name);
    return owner !== undefined && metadataOf(owner).uid === ref.uid;
  }

  private locate(ref: JsonObject, dependentNamespace: string): Location | undefined {
    const type = this.client.findType(String(ref.apiVersion), String(ref.kind));
    if (!type) return undefined;
    return {
      groupResource: storageKey(type),
      namespace: type.namespaced ? dependentNamespace : '',
      name: String(ref.name),
    };
  }

  private typeOfObject(object: JsonObject): boolean {
    return this.client.findType(String(object.apiVersion), String(object.kind)) !== undefined;
  }
}
