/**
 * A typed fake LeaseLock for unit tests: several locks share one InMemoryLease (one per replica,
 * like separate API clients), with resourceVersion conflicts, failure and hang injection, and watch.
 */
import type { LeaderElectionRecord } from '../lease-record';
import type { LeaseChangeListener, LeaseLock, ObservedLease } from '../lease-lock';

interface Stored {
  readonly record: LeaderElectionRecord;
  readonly resourceVersion: number;
}

export class InMemoryLease {
  private stored?: Stored;
  private version = 0;
  private readonly listeners = new Set<LeaseChangeListener>();
  /** Every write, in order (for asserting transitions). */
  readonly writes: LeaderElectionRecord[] = [];
  /** Calls fail with this HTTP code while set. */
  failWith?: number;
  /** Calls never answer while true. */
  hang = false;

  get current(): Stored | undefined {
    return this.stored;
  }

  lockFor(description = 'default/test-lease'): InMemoryLeaseLock {
    return new InMemoryLeaseLock(this, description);
  }

  /** Writes directly, as another client would. */
  put(record: LeaderElectionRecord): void {
    this.stored = { record, resourceVersion: ++this.version };
    this.writes.push(record);
    for (const listener of this.listeners) listener(observed(record));
  }

  delete(): void {
    this.stored = undefined;
    for (const listener of this.listeners) listener(undefined);
  }

  /** @internal */
  async call<T>(operation: () => T): Promise<T> {
    await Promise.resolve();
    if (this.hang) return new Promise<T>(() => undefined);
    if (this.failWith !== undefined) throw httpError(this.failWith);
    return operation();
  }

  /** @internal */
  subscribe(listener: LeaseChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export class InMemoryLeaseLock implements LeaseLock {
  private seenVersion?: number;
  watchEnabled = true;

  constructor(
    private readonly lease: InMemoryLease,
    readonly description: string,
  ) {}

  get(): Promise<ObservedLease | undefined> {
    return this.lease.call(() => {
      const stored = this.lease.current;
      if (!stored) return undefined;
      this.seenVersion = stored.resourceVersion;
      return observed(stored.record);
    });
  }

  create(record: LeaderElectionRecord): Promise<void> {
    return this.lease.call(() => {
      if (this.lease.current) throw httpError(409);
      this.seenVersion = this.write(record);
    });
  }

  update(record: LeaderElectionRecord): Promise<void> {
    return this.lease.call(() => {
      const stored = this.lease.current;
      if (!stored) throw httpError(404);
      if (stored.resourceVersion !== this.seenVersion) throw httpError(409);
      this.seenVersion = this.write(record);
    });
  }

  private write(record: LeaderElectionRecord): number | undefined {
    this.lease.put(record);
    return this.lease.current?.resourceVersion;
  }

  watch(listener: LeaseChangeListener): () => void {
    if (!this.watchEnabled) return () => undefined;
    return this.lease.subscribe(listener);
  }
}

function observed(record: LeaderElectionRecord): ObservedLease {
  return { record, raw: JSON.stringify(record) };
}

function httpError(code: number): Error & { code: number } {
  return Object.assign(new Error(`HTTP ${code}`), { code });
}
