/**
 * A BoundedWorkQueue whose waiting items are merged by key: an item offered while another of the
 * same key waits (in the coalescing window or in the queue, not yet handed to a worker) is merged
 * into it, so the handler runs once for both. New keys wait `windowMs` before they are queued, which
 * gives a later item for the same key the chance to join; `flush` (and `drain`) end the window at
 * once, so shutdown loses nothing to it. Items being worked on are never merged into.
 */
import { BoundedWorkQueue, type WorkQueueOptions, type WorkQueueStats } from './bounded-work-queue';

export interface CoalescingWorkQueueOptions<T> extends WorkQueueOptions<T> {
  /** How long a new key waits before it is queued (0: queued at once, merged while it waits there). */
  windowMs: number;
  keyOf(item: T): string;
  /** The one item standing for both (`later` arrived after `earlier`). */
  merge(earlier: T, later: T): T;
  /** Called each time an item was merged into a waiting one. */
  onCoalesce?: (item: T) => void;
}

export interface CoalescingWorkQueueStats extends WorkQueueStats {
  /** Items merged into one already waiting, since start. */
  coalesced: number;
}

interface Waiting<T> {
  readonly key: string;
  item: T;
}

export class CoalescingWorkQueue<T> {
  private readonly queue: BoundedWorkQueue<Waiting<T>>;
  /** Every entry not yet handed to a worker, by key. */
  private readonly waiting = new Map<string, Waiting<T>>();
  /** Entries in the window, in arrival order. */
  private windowed: Waiting<T>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private coalesced = 0;
  private droppedHere = 0;

  constructor(private readonly options: CoalescingWorkQueueOptions<T>) {
    if (!Number.isFinite(options.windowMs) || options.windowMs < 0)
      throw new RangeError(`windowMs must be a number >= 0, got ${options.windowMs}`);
    this.queue = new BoundedWorkQueue<Waiting<T>>({
      capacity: options.capacity,
      workers: options.workers,
      handler: (entry) => {
        // Picked by a worker: from now on a new item of this key starts an entry of its own.
        if (this.waiting.get(entry.key) === entry) this.waiting.delete(entry.key);
        return options.handler(entry.item);
      },
      onError: (error, entry) => options.onError?.(error, entry.item),
      onDrop: (entry, reason) => {
        if (this.waiting.get(entry.key) === entry) this.waiting.delete(entry.key);
        options.onDrop?.(entry.item, reason);
      },
    });
  }

  /** Merges or queues `item`; false (counted as dropped) when full or stopped. */
  offer(item: T): boolean {
    const key = this.options.keyOf(item);
    // Once stopped, the inner queue refuses and counts it.
    if (this.stopped) return this.queue.offer({ key, item });
    const entry = this.waiting.get(key);
    if (entry) {
      entry.item = this.options.merge(entry.item, item);
      this.coalesced += 1;
      this.options.onCoalesce?.(item);
      return true;
    }
    if (this.depth >= this.options.capacity) return this.drop(item, 'full');
    const fresh: Waiting<T> = { key, item };
    this.waiting.set(key, fresh);
    if (this.options.windowMs === 0) return this.queue.offer(fresh);
    this.windowed.push(fresh);
    this.timer ??= setTimeout(() => this.flush(), this.options.windowMs);
    return true;
  }

  /** Ends the window: everything in it is queued now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.windowed;
    this.windowed = [];
    for (const entry of entries) this.queue.offer(entry);
  }

  /** Waiting (window and queue), not counting items being worked on. */
  get depth(): number {
    return this.windowed.length + this.queue.depth;
  }

  stats(): CoalescingWorkQueueStats {
    const inner = this.queue.stats();
    return {
      depth: this.depth,
      active: inner.active,
      accepted: inner.accepted,
      dropped: inner.dropped + this.droppedHere,
      done: inner.done,
      failed: inner.failed,
      coalesced: this.coalesced,
    };
  }

  /** Ends the window and waits (without stopping) until nothing is queued or running. */
  whenIdle(): Promise<void> {
    this.flush();
    return this.queue.whenIdle();
  }

  /**
   * Stops accepting, ends the window and waits until everything queued is done or `timeoutMs`
   * passes; true when everything finished.
   */
  drain(timeoutMs: number): Promise<boolean> {
    this.stopped = true;
    this.flush();
    return this.queue.drain(timeoutMs);
  }

  private drop(item: T, reason: 'full'): false {
    this.droppedHere += 1;
    this.options.onDrop?.(item, reason);
    return false;
  }
}
