/**
 * An informer that keeps going: list, then watch from the list's resourceVersion; on a watch
 * that ends, watch again from the last version seen; on 410 Gone, relist; on any other error,
 * retry after an exponential backoff with jitter; relist periodically. A relist is diffed against
 * the cache so handlers see only real adds, updates and deletes.
 *
 * client-node's `makeInformer` instead stops for good on any error but 410, which is why this exists.
 */
import { isGone, KubeApiError, type KubeStatus } from '../errors/kube-api-error';
import { type KubeObject, type ObjectHeader, errorMessage } from '@edict/foundation';
import type { RawWatchEvent } from '../http/kube-resources';
import { Backoff, type BackoffOptions } from './backoff';
import type { ListWatchSource } from './list-watch';
import { ObjectCache, objectKey, type IndexFunction } from './object-cache';

export interface InformerOptions<T extends ObjectHeader = KubeObject> {
  /** For logs and errors, e.g. `v1/ConfigMap`. */
  readonly name?: string;
  readonly indexers?: Readonly<Record<string, IndexFunction<T>>>;
  /** Full relist period (default 10 min; 0 turns it off). */
  readonly resyncIntervalMs?: number;
  /** Retry delays after errors (default 0.5 s doubling to 30 s, +50 % jitter). */
  readonly backoff?: BackoffOptions;
  /** A watch that ends within this time having delivered nothing counts as a failure (default 1 s). */
  readonly minHealthyWatchMs?: number;
  readonly logger?: InformerLogger;
  readonly random?: () => number;
  /** Called once when `stop` is first called (the InformerFactory forgets the informer then). */
  readonly onStop?: () => void;
}

export interface InformerLogger {
  warn(message: string): void;
  debug?(message: string): void;
}

export interface InformerStats {
  readonly synced: boolean;
  readonly size: number;
  readonly resourceVersion: string;
  /** Watches opened after the first one (after an end, an error or a relist). */
  readonly reconnects: number;
  /** Lists after the initial one (410 Gone, periodic resync, errors before the first sync). */
  readonly relists: number;
  /** List or watch failures so far. */
  readonly errors: number;
  /** Handler calls that threw. */
  readonly handlerErrors: number;
  readonly lastError?: Error;
  readonly lastErrorAt?: Date;
  readonly lastListAt?: Date;
}

export type InformerEventName = 'add' | 'update' | 'delete';
type Result = void | Promise<void>;
export interface InformerHandlers<T> {
  add: (object: T) => Result;
  update: (object: T, previous: T) => Result;
  delete: (object: T) => Result;
}
type AnyHandler<T> = InformerHandlers<T>[InformerEventName];

export class InformerStoppedError extends Error {
  override readonly name = 'InformerStoppedError';
}

export class Informer<T extends ObjectHeader = KubeObject> {
  private readonly cache: ObjectCache<T>;
  private readonly backoff: Backoff;
  private readonly handlers: { [K in InformerEventName]: Array<InformerHandlers<T>[K]> } = {
    add: [],
    update: [],
    delete: [],
  };
  private readonly queue: Array<() => Result> = [];
  private draining = false;
  private resourceVersion = '';
  private started = false;
  private stopped = false;
  private synced = false;
  private listed = false;
  private relistDue = false;
  private runLoop: Promise<void> | undefined;
  private abortWatch: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private syncWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private counters = { reconnects: 0, relists: 0, errors: 0, handlerErrors: 0, watches: 0 };
  private lastError: Error | undefined;
  private lastErrorAt: Date | undefined;
  private lastListAt: Date | undefined;
  private readonly name: string;
  private readonly stopController = new AbortController();

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.cache = new ObjectCache(options.indexers);
    this.backoff = new Backoff(options.backoff, options.random);
    this.name = options.name ?? 'informer';
  }

  /** Starts listing and watching (once; an informer cannot restart after `stop`). */
  start(): void {
    if (this.stopped) throw new InformerStoppedError(`${this.name} was stopped and cannot start again`);
    if (this.started) return;
    this.started = true;
    const period = this.options.resyncIntervalMs ?? 600_000;
    if (period > 0) this.resyncTimer = setInterval(() => this.requestRelist(), period);
    this.runLoop = this.run();
  }

  /** Stops watching, ends pending waits and resolves once the loop has exited. */
  async stop(): Promise<void> {
    if (this.stopped) return this.runLoop;
    this.stopped = true;
    this.options.onStop?.();
    this.stopController.abort(new InformerStoppedError(`${this.name} stopped`));
    clearInterval(this.resyncTimer);
    this.abortWatch?.();
    this.wake?.();
    for (const waiter of this.syncWaiters.splice(0)) {
      waiter.reject(new InformerStoppedError(`${this.name} stopped before it synced`));
    }
    await this.runLoop;
  }

  /** True once the first list is in the cache and its events have reached the handlers. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves when synced; rejects if the informer stops first or `timeoutMs` passes. */
  waitForSync(timeoutMs?: number): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopped) return Promise.reject(new InformerStoppedError(`${this.name} is stopped`));
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      this.syncWaiters.push(waiter);
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => {
          this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
          const cause = this.lastError ? `; last error: ${this.lastError.message}` : '';
          reject(new Error(`${this.name} did not sync within ${timeoutMs} ms${cause}`));
        }, timeoutMs);
        waiter.resolve = () => (clearTimeout(timer), resolve());
        waiter.reject = (error) => (clearTimeout(timer), reject(error));
      }
    });
  }

  /** Forces a full relist soon (the current watch is dropped). */
  requestRelist(): void {
    this.relistDue = true;
    this.abortWatch?.();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(name, namespace);
  }

  list(namespace?: string): T[] {
    return this.cache.list(namespace);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.cache.byIndex(indexName, value);
  }

  /**
   * Registers a handler; returns its removal. Handlers run one event at a time in the order the
   * events happened (async handlers are awaited). An `add` handler registered late first gets an
   * add for every object already cached, as client-go does.
   */
  on<K extends InformerEventName>(event: K, handler: InformerHandlers<T>[K]): () => void {
    (this.handlers[event] as Array<InformerHandlers<T>[K]>).push(handler);
    if (event === 'add' && this.listed) {
      const snapshot = this.cache.list();
      this.enqueue(async () => {
        for (const object of snapshot) await this.call(handler as AnyHandler<T>, [object]);
      });
    }
    return () => {
      const list = this.handlers[event] as Array<InformerHandlers<T>[K]>;
      const index = list.indexOf(handler);
      if (index >= 0) list.splice(index, 1);
    };
  }

  stats(): InformerStats {
    return {
      synced: this.synced,
      size: this.cache.size,
      resourceVersion: this.resourceVersion,
      reconnects: this.counters.reconnects,
      relists: this.counters.relists,
      errors: this.counters.errors,
      handlerErrors: this.counters.handlerErrors,
      ...(this.lastError ? { lastError: this.lastError, lastErrorAt: this.lastErrorAt } : {}),
      ...(this.lastListAt ? { lastListAt: this.lastListAt } : {}),
    };
  }

  // The loop

  private async run(): Promise<void> {
    let needList = true;
    let previousWasGone = false;
    while (!this.stopped) {
      try {
        if (needList || this.relistDue) {
          this.relistDue = false;
          await this.relist();
          needList = false;
        }
        const healthy = await this.watchOnce();
        previousWasGone = false;
        if (healthy) this.backoff.reset();
        else await this.sleep(this.backoff.next());
      } catch (error) {
        if (this.stopped) break;
        this.recordError(error);
        const gone = isGone(error);
        if (gone) needList = true;
        else if (!this.listed) needList = true;
        // A first 410 relists at once; anything else (or 410s in a row) waits.
        if (!gone || previousWasGone) await this.sleep(this.backoff.next());
        previousWasGone = gone;
      }
    }
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.source.list(this.stopController.signal);
    if (this.stopped) return;
    if (this.listed) this.counters.relists += 1;
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const previous = this.cache.upsert(item);
      if (!previous) this.emit('add', item);
      else if (previous.metadata?.resourceVersion !== item.metadata?.resourceVersion)
        this.emit('update', item, previous);
    }
    for (const key of [...this.cache.keys()]) {
      if (seen.has(key)) continue;
      const removed = this.cache.remove(key);
      if (removed) this.emit('delete', removed);
    }
    this.resourceVersion = resourceVersion;
    this.lastListAt = new Date();
    if (!this.listed) {
      this.listed = true;
      this.enqueue(() => this.markSynced());
    }
  }

  /** One watch until it ends; `false` when it ended at once without delivering anything. */
  private async watchOnce(): Promise<boolean> {
    if (this.counters.watches > 0) this.counters.reconnects += 1;
    this.counters.watches += 1;
    const started = Date.now();
    let received = false;
    let failure: unknown;
    let aborted = false;
    const connecting = new AbortController();
    let abort = (): void => {
      aborted = true;
      connecting.abort();
    };
    this.abortWatch = () => abort();
    try {
      const stream = await this.source.watch(
        this.resourceVersion,
        (event) => {
          if (failure !== undefined || aborted) return;
          try {
            this.apply(event);
            received = true;
          } catch (error) {
            failure = error;
            abort();
          }
        },
        connecting.signal,
      );
      abort = () => {
        aborted = true;
        stream.abort();
      };
      if (this.stopped || this.relistDue || failure !== undefined) stream.abort();
      await stream.closed;
    } catch (error) {
      // Dropped on purpose (stop or relist) while connecting: not a failure.
      if (!aborted || failure !== undefined) throw error;
    } finally {
      this.abortWatch = undefined;
    }
    if (failure !== undefined) throw failure;
    return received || aborted || Date.now() - started >= (this.options.minHealthyWatchMs ?? 1_000);
  }

  private apply(event: RawWatchEvent<T>): void {
    const object = event.object;
    switch (event.type) {
      case 'ERROR':
        throw KubeApiError.fromStatus(object as KubeStatus);
      case 'BOOKMARK':
        break;
      case 'ADDED':
      case 'MODIFIED': {
        const previous = this.cache.upsert(object);
        if (previous) this.emit('update', object, previous);
        else this.emit('add', object);
        break;
      }
      case 'DELETED': {
        const removed = this.cache.remove(objectKey(object));
        if (removed) this.emit('delete', object);
        break;
      }
      default:
        throw new Error(`${this.name}: unknown watch event type "${String(event.type)}"`);
    }
    const version = object.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
  }

  // Delivery

  private emit(event: 'add' | 'delete', object: T): void;
  private emit(event: 'update', object: T, previous: T): void;
  private emit(event: InformerEventName, object: T, previous?: T): void {
    const handlers = [...this.handlers[event]] as AnyHandler<T>[];
    if (handlers.length === 0) return;
    const args = (event === 'update' ? [object, previous] : [object]) as [T, T];
    this.enqueue(async () => {
      for (const handler of handlers) await this.call(handler, args);
    });
  }

  private async call(handler: AnyHandler<T>, args: [T] | [T, T]): Promise<void> {
    try {
      await (handler as (...a: T[]) => Result)(...args);
    } catch (error) {
      this.counters.handlerErrors += 1;
      this.options.logger?.warn(`${this.name}: a handler failed: ${errorMessage(error)}`);
    }
  }

  private enqueue(task: () => Result): void {
    this.queue.push(task);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const task = this.queue.shift()!;
        await task();
      }
    } finally {
      this.draining = false;
    }
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const waiter of this.syncWaiters.splice(0)) waiter.resolve();
  }

  private recordError(error: unknown): void {
    this.counters.errors += 1;
    this.lastError = error instanceof Error ? error : new Error(String(error));
    this.lastErrorAt = new Date();
    this.options.logger?.warn(`${this.name}: ${errorMessage(error)}`);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = undefined));
  }
}
