/**
 * The lock the elector contends for (client-go's resourcelock.Interface, Lease flavour). `update`
 * writes over the lease last read or written, carrying its resourceVersion, so a concurrent writer
 * makes it fail with 409 instead of silently overwriting (optimistic concurrency).
 */
import type { LeaderElectionRecord } from './lease-record';

export interface ObservedLease {
  readonly record: LeaderElectionRecord;
  /** A stable serialization of the spec: the elector compares it to tell a changed lease apart. */
  readonly raw: string;
}

/** What a watch saw: the lease as it is now, or undefined when it was deleted. */
export type LeaseChangeListener = (lease: ObservedLease | undefined) => void;

export interface LeaseLock {
  /** `<namespace>/<name>`, for logs. */
  readonly description: string;
  /** The current lease, or undefined when it does not exist; throws on any other failure. */
  get(): Promise<ObservedLease | undefined>;
  create(record: LeaderElectionRecord): Promise<void>;
  /** Replaces the spec of the lease last seen; throws (409) when someone else wrote it since. */
  update(record: LeaderElectionRecord): Promise<void>;
  /** Optional: reports changes as they happen, so candidates react to a release at once. Returns a stop function. */
  watch?(listener: LeaseChangeListener): () => void;
}
