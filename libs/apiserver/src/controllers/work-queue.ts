/**
 * A controller's work queue, as client-go's rate-limited queue behaves: a key waits at most once,
 * is handled by one worker at a time (added again while handled, it runs once more afterwards), and
 * a failed key comes back after an exponential delay that resets when it succeeds.
 */
import type { JsonObject } from '@edict/engine';
import { metadataOf } from '../resources/prepare';

/** client-go's per-item backoff: 5 ms doubling up to 1000 s. */
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 1_000_000;

/** `namespace/name`, the key controllers queue objects under. */
export function keyOf(object: JsonObject): string {
  const meta = metadataOf(object);
  return `${String(meta.namespace ?? '')}/${String(meta.name)}`;
}

export function splitKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

export type KeyHandler = (key: string) => Promise<void>;

export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added while being handled. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private readonly failures = new Map<string, number>();
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

  /** Adds `key` after `delayMs` (an earlier pending add wins). */
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

  /** True when nothing waits or runs (delayed retries do not count). */
  get idle(): boolean {
    return this.waiting.size === 0 && this.active.size === 0;
  }

  /** Resolves once the queue is idle. */
  async drained(): Promise<void> {
    if (this.idle) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
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

  start(): void {
    this.stopped = false;
  }

  private pump(): void {
    for (const key of this.waiting) {
      if (this.active.size >= this.workers) return;
      if (this.active.has(key)) continue;
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
      this.addAfter(key, Math.min(BASE_DELAY_MS * 2 ** failures, MAX_DELAY_MS));
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key) && !this.stopped) this.waiting.add(key);
      this.pump();
      if (this.idle) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
