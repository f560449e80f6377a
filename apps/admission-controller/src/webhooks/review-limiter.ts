/**
 * A concurrency cap for admission reviews: at most `maxInFlight` run at once, up to `maxQueued`
 * wait (each no longer than its own deadline), the rest are refused at once so the caller can
 * answer by its failure policy instead of piling up work the API server will have given up on.
 */
export type Admission<T> = { admitted: true; value: T } | { admitted: false; reason: 'queue-full' | 'queue-timeout' };

interface Waiter {
  readonly grant: () => void;
}

export class ReviewLimiter {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly idleListeners = new Set<() => void>();

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueued: number,
  ) {}

  /** Runs `work` when a slot is free within `waitMs`; otherwise says why it did not. */
  async run<T>(work: () => Promise<T>, waitMs: number): Promise<Admission<T>> {
    if (this.running >= this.maxInFlight) {
      if (this.queue.length >= this.maxQueued) return { admitted: false, reason: 'queue-full' };
      const granted = await this.waitForSlot(waitMs);
      if (!granted) return { admitted: false, reason: 'queue-timeout' };
    } else {
      this.running += 1;
    }
    try {
      return { admitted: true, value: await work() };
    } finally {
      this.release();
    }
  }

  inFlight(): number {
    return this.running;
  }

  queued(): number {
    return this.queue.length;
  }

  /** Resolves when nothing runs or waits (true), or after `timeoutMs` (false). */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.idleListeners.delete(onIdle);
        resolve(idle);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleListeners.add(onIdle);
    });
  }

  private waitForSlot(waitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        resolve(false);
        this.notifyIfIdle();
      }, waitMs);
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next waiter, so `running` stays the same.
    if (next) next.grant();
    else {
      this.running -= 1;
      this.notifyIfIdle();
    }
  }

  private notifyIfIdle(): void {
    if (this.running !== 0 || this.queue.length !== 0) return;
    for (const listener of [...this.idleListeners]) listener();
  }
}
