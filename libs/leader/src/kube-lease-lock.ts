/**
 * LeaseLock over `coordination.k8s.io/v1` Leases through client-node's CoordinationV1Api, with an
 * optional watch (needs a KubeConfig) that lets candidates see a release without waiting a retry period.
 */
import type { CoordinationV1Api, KubeConfig, V1Lease } from '@kubernetes/client-node';
import { leaseSpecToRecord, recordToLeaseSpec, type LeaderElectionRecord } from './lease-record';
import { isNotFound } from '@edict/kube';
import type { LeaseChangeListener, LeaseLock, ObservedLease } from './lease-lock';

/** The part of CoordinationV1Api the lock uses (a real CoordinationV1Api satisfies it). */
export type CoordinationApi = Pick<
  CoordinationV1Api,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

export interface KubeLeaseLockOptions {
  readonly api: CoordinationApi;
  readonly name: string;
  readonly namespace: string;
  /** Enables `watch`. */
  readonly kubeConfig?: KubeConfig;
  /** Delay before a watch that ended is started again (default 1 s). */
  readonly rewatchDelayMs?: number;
}

export class KubeLeaseLock implements LeaseLock {
  readonly description: string;
  private lease?: V1Lease;

  constructor(private readonly options: KubeLeaseLockOptions) {
    this.description = `${options.namespace}/${options.name}`;
    if (options.kubeConfig) this.watch = (listener) => this.startWatch(listener);
  }

  watch?: (listener: LeaseChangeListener) => () => void;

  async get(): Promise<ObservedLease | undefined> {
    try {
      this.lease = await this.options.api.readNamespacedLease({
        name: this.options.name,
        namespace: this.options.namespace,
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return observe(this.lease);
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.lease = await this.options.api.createNamespacedLease({
      namespace: this.options.namespace,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.options.name, namespace: this.options.namespace },
        spec: recordToLeaseSpec(record),
      },
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error(`lease ${this.description} not initialized: get or create it first`);
    this.lease = await this.options.api.replaceNamespacedLease({
      name: this.options.name,
      namespace: this.options.namespace,
      body: { ...this.lease, spec: recordToLeaseSpec(record) },
    });
  }

  private startWatch(listener: LeaseChangeListener): () => void {
    const { kubeConfig, namespace, name } = this.options;
    let stopped = false;
    let abort: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
    const restart = () => {
      if (stopped) return;
      timer = setTimeout(run, this.options.rewatchDelayMs ?? 1000);
      timer.unref?.();
    };
    const run = async () => {
      if (stopped || !kubeConfig) return;
      try {
        const { Watch } = await import('@kubernetes/client-node');
        abort = await new Watch(kubeConfig).watch(
          path,
          { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: false },
          (type: string, object: V1Lease) => {
            if (type === 'DELETED') listener(undefined);
            else if (type === 'ADDED' || type === 'MODIFIED') listener(observe(object));
          },
          () => restart(),
        );
        if (stopped) abort.abort();
      } catch {
        restart();
      }
    };
    void run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      abort?.abort();
    };
  }
}

function observe(lease: V1Lease): ObservedLease {
  const record = leaseSpecToRecord(lease.spec);
  return { record, raw: JSON.stringify(record) };
}
