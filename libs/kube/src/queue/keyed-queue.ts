/**
 * The controller's work queue, with client-go's guarantees: a key waits at most once, one worker
 * handles a key at a time (added again meanwhile, it runs once more afterwards), `addAfter` delays
 * a key (an earlier due time wins), and at most `workers` handlers run at once.
 */
export type KeyHandler = (key: string) => Promise<void>;

export class KeyedQueue {
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private idleWaiters: Array<() => void> = [];
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

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
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

  /** Resolves once nothing waits or runs. */
  async idle(): Promise<void> {
    if (this.depth === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops waiting and delayed keys and refuses new ones; resolves when the running handlers are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    this.dirty.clear();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.idle();
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
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key) && !this.stopped) this.waiting.add(key);
      this.pump();
      if (this.depth === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
