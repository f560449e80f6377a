/**
 * A controller's work queue with client-go's guarantees: a key waits at most once, one worker
 * handles a key at a time (added again meanwhile, it runs once more afterwards), `addAfter` delays a
 * key (an earlier due time wins), at most `workers` handlers run at once, and a handler that throws
 * gets its key back after a per-key exponential delay that resets when it succeeds.
 */
export type KeyHandler = (key: string) => Promise<void>;

/** client-go's default per-item backoff: 5 ms doubling up to 1000 s. */
const BASE_RETRY_MS = 5;
const MAX_RETRY_MS = 1_000_000;
/** Node's longest timer (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added while being handled. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private readonly failures = new Map<string, number>();
  private drainWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly handler: KeyHandler,
    private readonly workers: number,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.waiting.add(key);
    this.pump();
  }

  /** Adds `key` after `delayMs` (an earlier pending add wins). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    // Past Node's longest timer the key comes back early: its handler decides again and waits on.
    delayMs = Math.min(delayMs, MAX_TIMER_MS);
    const due = Date.now() + delayMs;
    const scheduled = this.timers.get(key);
    if (scheduled && scheduled.due <= due) return;
    if (scheduled) clearTimeout(scheduled.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { timer, due });
  }

  /** Keys waiting or running (delayed ones not counted). */
  get depth(): number {
    return this.waiting.size + this.active.size;
  }

  /** Resolves once nothing waits or runs (delayed keys do not count). */
  async drained(): Promise<void> {
    if (this.depth === 0) return;
    await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  /** Drops waiting and delayed keys and refuses new ones; resolves when running handlers are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    this.dirty.clear();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.failures.clear();
    await this.drained();
  }

  /** Accepts keys again after `stop`. */
  start(): void {
    this.stopped = false;
  }

  private pump(): void {
    for (const key of this.waiting) {
      if (this.active.size >= this.workers) return;
      this.waiting.delete(key);
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    this.active.add(key);
    try {
      await this.handler(key);
      this.failures.delete(key);
    } catch {
      const failures = this.failures.get(key) ?? 0;
      this.failures.set(key, failures + 1);
      this.addAfter(key, Math.min(BASE_RETRY_MS * 2 ** failures, MAX_RETRY_MS));
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key) && !this.stopped) this.waiting.add(key);
      this.pump();
      if (this.depth === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
    }
  }
}
