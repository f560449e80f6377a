/**
 * kube-controller-manager's service account controller: every active Namespace has a `default`
 * ServiceAccount, created when the Namespace comes and again if it is deleted (Pods run as it
 * unless they name another, and the ServiceAccount admission plugin refuses Pods whose account is
 * missing).
 */
import { isObject } from '@edict/foundation';
import { ApiError, metadataOf, type ChangeEvent, type ClusterCache } from '@edict/apiserver';
import type { ControllerClient } from './controller-client';
import { WorkQueue } from '@edict/work-queue';

const NAMESPACES = '/namespaces';
const SERVICE_ACCOUNTS = '/serviceaccounts';
const DEFAULT_ACCOUNT = 'default';

export class ServiceAccountController {
  /** Keyed by namespace name. */
  readonly queue = new WorkQueue((namespace) => this.sync(namespace), 1);

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
  ) {}

  observe(event: ChangeEvent): void {
    if (event.groupResource === NAMESPACES && event.type !== 'DELETED') {
      this.queue.add(String(metadataOf(event.object).name));
    } else if (event.groupResource === SERVICE_ACCOUNTS && event.type === 'DELETED') {
      if (metadataOf(event.object).name === DEFAULT_ACCOUNT) this.queue.add(event.namespace);
    }
  }

  resyncAll(): void {
    for (const namespace of this.store.list(NAMESPACES)) this.queue.add(String(metadataOf(namespace).name));
  }

  private async sync(namespace: string): Promise<void> {
    const object = this.store.get(NAMESPACES, '', namespace);
    if (!object || metadataOf(object).deletionTimestamp !== undefined) return;
    if (isObject(object.status) && object.status.phase === 'Terminating') return;
    if (this.store.get(SERVICE_ACCOUNTS, namespace, DEFAULT_ACCOUNT)) return;
    try {
      await this.client.create({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: DEFAULT_ACCOUNT, namespace },
      });
    } catch (error) {
      // Created meanwhile, or the Namespace is going away: nothing left to do.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 403))) throw error;
    }
  }
}
