/**
 * A bounded in-memory work queue with a fixed number of workers. `offer` never blocks and never
 * waits: when the queue is full the item is dropped and counted, so whoever produces work (the
 * admission webhook) is never slowed by whoever consumes it (the API server writes). `drain` lets
 * shutdown finish what is queued within a deadline.
 */
export interface WorkQueueOptions<T> {
  /** Items waiting (not counting the ones being worked on). */
  capacity: number;
  /** Items worked on at once. */
  workers: number;
  handler: (item: T) => Promise<void>;
  /** Called when the handler throws (the queue carries on). */
  onError?: (error: unknown, item: T) => void;
  /** Called for each dropped item (full, or stopped). */
  onDrop?: (item: T, reason: 'full' | 'stopped') => void;
}

export interface WorkQueueStats {
  depth: number;
  active: number;
  accepted: number;
  dropped: number;
  done: number;
  failed: number;
}

export class BoundedWorkQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private active = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly counts = { accepted: 0, dropped: 0, done: 0, failed: 0 };

  constructor(private readonly options: WorkQueueOptions<T>) {
    if (!Number.isInteger(options.capacity) || options.capacity < 0)
      throw new RangeError(`capacity must be a whole number >= 0, got ${options.capacity}`);
    if (!Number.isInteger(options.workers) || options.workers < 1)
      throw new RangeError(`workers must be a whole number >= 1, got ${options.workers}`);
  }

  /** Queues `item`; false (and counted as dropped) when the queue is full or stopped. */
  offer(item: T): boolean {
    if (this.stopped) return this.drop(item, 'stopped');
    if (this.depth >= this.options.capacity) return this.drop(item, 'full');
    this.items.push(item);
    this.counts.accepted += 1;
    this.pump();
    return true;
  }

  get depth(): number {
    return this.items.length - this.head;
  }

  stats(): WorkQueueStats {
    // Written out: the after-admission drain estimate reads these on every review, and a spread
    // that gains keys takes V8's slow path.
    const { accepted, dropped, done, failed } = this.counts;
    return { depth: this.depth, active: this.active, accepted, dropped, done, failed };
  }

  /** True when nothing is queued or running. */
  idle(): boolean {
    return this.depth === 0 && this.active === 0;
  }

  /**
   * Stops accepting, then waits until queued and running items are done or `timeoutMs` passes.
   * Resolves true when everything finished.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.stopped = true;
    if (this.idle()) return true;
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const outcome = await Promise.race([finished, expired]);
    clearTimeout(timer);
    return outcome;
  }

  /** Waits (without stopping) until nothing is queued or running; for tests and flush points. */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private drop(item: T, reason: 'full' | 'stopped'): false {
    this.counts.dropped += 1;
    this.options.onDrop?.(item, reason);
    return false;
  }

  private pump(): void {
    while (this.active < this.options.workers && this.depth > 0) {
      const item = this.items[this.head] as T;
      this.items[this.head] = undefined as T;
      this.head += 1;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      this.active += 1;
      void this.run(item);
    }
    if (this.idle()) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private async run(item: T): Promise<void> {
    try {
      await this.options.handler(item);
      this.counts.done += 1;
    } catch (error) {
      this.counts.failed += 1;
      this.options.onError?.(error, item);
    } finally {
      this.active -= 1;
      this.pump();
    }
  }
}
