/**
 * How a controller writes: through the same admitted API path as any client (so admission webhooks
 * see its Pods, ReplicaSets and status updates), as the service account kube-controller-manager
 * gives each controller, plus the Events it records (repeats counted on one Event, as client-go's
 * recorder does).
 */
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '@edict/foundation';
import {
  ApiError,
  metadataOf,
  timestamp,
  type ApiClient,
  type UpdateSubresource,
  type UserClient,
} from '@edict/apiserver';

/** kube-controller-manager's user agent: its writes are recorded under the manager `kube-controller-manager`. */
const CONTROLLER_USER_AGENT = 'kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/edict';

/** Events remembered for counting repeats (client-go's correlator keeps a similar bounded cache). */
const MAX_REMEMBERED_EVENTS = 4096;

export type EventType = 'Normal' | 'Warning';

export class ControllerClient {
  private readonly writes: UserClient;
  /** Event key → the Event's name, oldest first. */
  private readonly recorded = new Map<string, string>();

  constructor(
    private readonly client: ApiClient,
    /** The controller's name: its service account in kube-system and its Events' source. */
    readonly component: string,
  ) {
    const user = {
      username: `system:serviceaccount:kube-system:${component}`,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    };
    this.writes = client.as(user, CONTROLLER_USER_AGENT);
  }

  create(object: JsonObject): Promise<JsonObject> {
    return this.writes.create(object);
  }

  /** A full update pinned to the object's resourceVersion (409 when someone wrote meanwhile). */
  update(object: JsonObject, subresource?: UpdateSubresource): Promise<JsonObject> {
    return this.writes.update(object, subresource);
  }

  /** Deletes the object if it is still the same one (uid precondition); a missing object is no error. */
  async delete(object: JsonObject): Promise<void> {
    const options = { preconditions: { uid: String(metadataOf(object).uid) } };
    try {
      await this.writes.delete(object, options);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 404)) throw error;
    }
  }

  /** Records an Event about `object`; failures are dropped, as kube's event recorder drops them. */
  async event(object: JsonObject, type: EventType, reason: string, message: string): Promise<void> {
    const meta = metadataOf(object);
    const namespace = namespaceOf(object) ?? 'default';
    const key = [namespace, meta.uid, type, reason, message].join('\u0000');
    const now = timestamp(new Date());
    try {
      const name = this.recorded.get(key);
      const existing = name ? this.client.get('v1', 'Event', name, namespace) : undefined;
      // A remembered Event someone deleted: dropped, as the failed count update always was.
      if (name && !existing) return;
      if (existing) {
        const count = typeof existing.count === 'number' ? existing.count : 1;
        await this.update({ ...existing, count: count + 1, lastTimestamp: now });
        return;
      }
      const created = await this.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${String(meta.name)}.${eventSuffix()}`, namespace },
        involvedObject: {
          kind: object.kind ?? '',
          namespace,
          name: meta.name ?? '',
          uid: meta.uid ?? '',
          apiVersion: object.apiVersion ?? '',
          resourceVersion: meta.resourceVersion ?? '',
        },
        reason,
        message,
        source: { component: this.component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: this.component,
        reportingInstance: '',
      });
      this.remember(key, String(metadataOf(created).name));
    } catch {
      // An Event is best effort.
    }
  }

  private remember(key: string, name: string): void {
    this.recorded.delete(key);
    this.recorded.set(key, name);
    if (this.recorded.size > MAX_REMEMBERED_EVENTS) this.recorded.delete(this.recorded.keys().next().value!);
  }
}

function namespaceOf(object: JsonObject): string | undefined {
  const namespace = isObject(object.metadata) ? object.metadata.namespace : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
}

/** Kube names Events `<object>.<hex of the time in nanoseconds>`; random low digits keep them unique. */
function eventSuffix(): string {
  const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(randomBytes(3).readUIntBE(0, 3) % 1_000_000);
  return nanos.toString(16);
}
