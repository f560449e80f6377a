/**
 * LeaseLock over `coordination.k8s.io/v1` Leases through libs/kube's REST client (KubeResources),
 * with an optional watch (libs/kube's informer on the one Lease) that lets candidates see a release
 * without waiting a retry period.
 */
import type { V1LeaseSpec } from '@kubernetes/client-node';
import type { ObjectHeader } from '@edict/foundation';
import { Informer, isNotFound, resourceListWatch, type KubeResources } from '@edict/kube/client';
import { leaseSpecToRecord, recordToLeaseSpec, type LeaderElectionRecord } from './lease-record';
import type { LeaseChangeListener, LeaseLock, ObservedLease } from './lease-lock';

interface Lease extends ObjectHeader {
  spec?: V1LeaseSpec;
}

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;

export interface KubeLeaseLockOptions {
  /** libs/kube's REST client (the app's KubeResources). */
  readonly resources: KubeResources;
  readonly name: string;
  readonly namespace: string;
  /** Enables `watch`. */
  readonly watch?: boolean;
  /** Delay before a watch that failed is started again (default 1 s, with up to 50 % jitter). */
  readonly rewatchDelayMs?: number;
}

export class KubeLeaseLock implements LeaseLock {
  readonly description: string;
  private lease?: Lease;

  constructor(private readonly options: KubeLeaseLockOptions) {
    this.description = `${options.namespace}/${options.name}`;
    if (options.watch) this.watch = (listener) => this.startWatch(listener);
  }

  watch?: (listener: LeaseChangeListener) => () => void;

  async get(): Promise<ObservedLease | undefined> {
    try {
      this.lease = await this.options.resources.get<Lease>({ ...LEASE, ...this.ref() });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return observe(this.lease);
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.lease = await this.options.resources.create<Lease>({
      ...LEASE,
      metadata: this.ref(),
      spec: recordToLeaseSpec(record),
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error(`lease ${this.description} not initialized: get or create it first`);
    this.lease = await this.options.resources.replace<Lease>({ ...this.lease, spec: recordToLeaseSpec(record) });
  }

  private ref(): { name: string; namespace: string } {
    return { name: this.options.name, namespace: this.options.namespace };
  }

  /** Every change to the one Lease: added or modified as it is now, deleted as undefined. */
  private startWatch(listener: LeaseChangeListener): () => void {
    const delayMs = this.options.rewatchDelayMs ?? 1000;
    const informer = new Informer<Lease>(
      resourceListWatch<Lease>(this.options.resources, {
        ...LEASE,
        namespace: this.options.namespace,
        fieldSelector: `metadata.name=${this.options.name}`,
      }),
      { name: `lease ${this.description}`, backoff: { initialMs: delayMs, maxMs: delayMs } },
    );
    informer.on('add', (lease) => listener(observe(lease)));
    informer.on('update', (lease) => listener(observe(lease)));
    informer.on('delete', () => listener(undefined));
    informer.start();
    return () => void informer.stop();
  }
}

function observe(lease: Lease): ObservedLease {
  const record = leaseSpecToRecord(lease.spec);
  return { record, raw: JSON.stringify(record) };
}
