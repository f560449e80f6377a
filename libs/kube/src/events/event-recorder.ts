/**
 * Records Kubernetes Events (events.k8s.io/v1) without letting a storm of them flood the API
 * server, in the manner of client-go's events broadcaster:
 *  - isomorphic events (same regarding, related, reason, action, type, controller) within
 *    `seriesWindowMs` become one Event with a `series` count, written at most once per
 *    `seriesFlushMs` and once more when the series ends, instead of one Event per occurrence;
 *  - pending writes are coalesced per event and bounded (`maxPending`), tracked events are bounded
 *    (`maxTracked`): beyond either, new events are dropped and counted, never queued without end;
 *  - writes pass a token bucket (`writesPerSecond`, `burst`) and are retried a few times.
 * `record` never blocks and never throws.
 */
import { microTime } from '../helpers/micro-time';
import { toKubeApiError } from '../errors/kube-api-error';
import type { EventInput, EventObjectReference, EventSink, KubeEvent } from './event-types';

export interface EventRecorderOptions {
  /** `reportingController` of every event (e.g. Kyverno's `kyverno-admission`). */
  reportingController: string;
  /** `reportingInstance` (client-go: `<controller>-<hostname>`). */
  reportingInstance: string;
  /** Distinct events waiting to be written (default 1000). */
  maxPending?: number;
  /** Distinct events remembered for aggregation (default 4096). */
  maxTracked?: number;
  /** A series ends this long after its last occurrence (client-go: 6 min). */
  seriesWindowMs?: number;
  /** Series counts are written at most this often (default 30 s). */
  seriesFlushMs?: number;
  /** Sustained writes per second and burst (defaults 10 and 25). */
  writesPerSecond?: number;
  burst?: number;
  /** Attempts per write on transient errors (default 3, as Kyverno's event queue). */
  attempts?: number;
  now?: () => Date;
  onError?: (error: unknown, event: KubeEvent) => void;
}

export interface EventRecorderStats {
  recorded: number;
  aggregated: number;
  dropped: number;
  written: number;
  failed: number;
  pending: number;
  tracked: number;
}

/** The longest note the API server accepts. */
const MAX_NOTE_BYTES = 1024;

interface Tracked {
  event: KubeEvent;
  created: boolean;
  /** Occurrences not yet written (the series count moved on since the last write). */
  dirty: boolean;
  lastSeen: number;
}

export class EventRecorder {
  private readonly tracked = new Map<string, Tracked>();
  private readonly pending = new Set<string>();
  private readonly counts = { recorded: 0, aggregated: 0, dropped: 0, written: 0, failed: 0 };
  private readonly options: Required<Omit<EventRecorderOptions, 'onError'>> & Pick<EventRecorderOptions, 'onError'>;
  private tokens: number;
  private lastRefill: number;
  private running = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly ticker: NodeJS.Timeout;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly sink: EventSink,
    options: EventRecorderOptions,
  ) {
    this.options = {
      maxPending: 1000,
      maxTracked: 4096,
      seriesWindowMs: 6 * 60_000,
      seriesFlushMs: 30_000,
      writesPerSecond: 10,
      burst: 25,
      attempts: 3,
      now: () => new Date(),
      ...options,
    };
    this.tokens = this.options.burst;
    this.lastRefill = Date.now();
    this.ticker = setInterval(() => this.tick(), Math.min(this.options.seriesFlushMs, this.options.seriesWindowMs));
    this.ticker.unref();
  }

  /** Records one occurrence; false when it was dropped (limits reached, or stopped). */
  record(input: EventInput): boolean {
    // Kyverno skips an object without a name (its name not generated yet) without counting a drop.
    if (!input.regarding.name) return this.drop(false);
    if (this.stopped) return this.drop();
    const key = isomorphicKey(input, this.options.reportingController);
    const now = this.options.now();
    const existing = this.tracked.get(key);
    if (existing) {
      this.counts.recorded += 1;
      this.counts.aggregated += 1;
      const series = existing.event.series;
      existing.event.series = { count: (series?.count ?? 1) + 1, lastObservedTime: microTime(now) };
      existing.lastSeen = now.getTime();
      existing.dirty = true;
      // The second occurrence starts the series at once (as client-go); later ones wait for the flush.
      if (!series) this.schedule(key);
      return true;
    }
    if (this.tracked.size >= this.options.maxTracked || this.pending.size >= this.options.maxPending)
      return this.drop();
    this.counts.recorded += 1;
    this.tracked.set(key, { event: this.build(input, now), created: false, dirty: true, lastSeen: now.getTime() });
    this.schedule(key);
    return true;
  }

  stats(): EventRecorderStats {
    return { ...this.counts, pending: this.pending.size, tracked: this.tracked.size };
  }

  /** Writes what is pending (series counts included) within `timeoutMs`; true when done. */
  async flush(timeoutMs: number): Promise<boolean> {
    for (const [key, entry] of this.tracked) if (entry.dirty) this.schedule(key);
    if (this.pending.size === 0 && !this.running) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const outcome = await Promise.race([done, expired]);
    clearTimeout(timer);
    return outcome;
  }

  /** Flushes for at most `timeoutMs`, then stops recording. */
  async stop(timeoutMs = 0): Promise<void> {
    if (timeoutMs > 0) await this.flush(timeoutMs);
    this.stopped = true;
    clearInterval(this.ticker);
    this.pending.clear();
    this.wake?.();
    await this.loop;
  }

  private drop(givenUp = true): false {
    this.counts.dropped += 1;
    if (givenUp) this.sink.dropped?.();
    return false;
  }

  private build(input: EventInput, now: Date): KubeEvent {
    const regarding = compactRef(input.regarding);
    const event: KubeEvent = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        // client-go's name: the regarding object's name and the time in hex nanoseconds.
        name: `${regarding.name}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(this.uniquifier())).toString(16)}`,
        namespace: regarding.namespace || 'default',
      },
      eventTime: microTime(now),
      reportingController: this.options.reportingController,
      reportingInstance: this.options.reportingInstance,
      action: input.action,
      reason: input.reason,
      regarding,
      note: truncateBytes(input.note, MAX_NOTE_BYTES),
      type: input.type,
    };
    if (input.related) event.related = compactRef(input.related);
    return event;
  }

  /** Sub-millisecond digits so events recorded in the same millisecond get distinct names. */
  private sequence = 0;
  private uniquifier(): number {
    this.sequence = (this.sequence + 1) % 1_000_000;
    return this.sequence;
  }

  private schedule(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.running) {
      this.running = true;
      this.loop = this.drain();
    } else this.wake?.();
  }

  /** Periodic: write series that moved on; end series (with a last write) that went quiet. */
  private tick(): void {
    const now = this.options.now().getTime();
    for (const [key, entry] of this.tracked) {
      const quiet = now - entry.lastSeen > this.options.seriesWindowMs;
      if (entry.dirty) this.schedule(key);
      else if (quiet && !this.pending.has(key)) this.tracked.delete(key);
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0 && !this.stopped) {
        const key = this.pending.values().next().value as string;
        this.pending.delete(key);
        const entry = this.tracked.get(key);
        if (!entry || !entry.dirty) continue;
        await this.takeToken();
        if (this.stopped) break;
        await this.write(entry);
      }
    } finally {
      this.running = false;
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async write(entry: Tracked): Promise<void> {
    entry.dirty = false;
    const snapshot: KubeEvent = structuredClone(entry.event);
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (entry.created && snapshot.series) {
          try {
            await this.sink.updateSeries(snapshot);
          } catch (error) {
            if (toKubeApiError(error)?.code !== 404) throw error;
            await this.sink.create(snapshot); // gone (expired or deleted): write it anew
          }
        } else await this.sink.create(snapshot);
        entry.created = true;
        this.counts.written += 1;
        return;
      } catch (error) {
        const api = toKubeApiError(error);
        if (api?.code === 409 && api.reason === 'AlreadyExists') {
          entry.created = true;
          this.counts.written += 1;
          return;
        }
        const transient = !api || api.code === 429 || api.code >= 500;
        if (!transient || attempt >= this.options.attempts) {
          this.counts.failed += 1;
          // As Kyverno's event generator: an event not written is dropped, unless its object is gone.
          if (api?.code !== 404) this.sink.dropped?.();
          this.options.onError?.(error, snapshot);
          return;
        }
        await sleep(Math.min(1_000, 50 * 2 ** attempt));
      }
    }
  }

  private async takeToken(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(
        this.options.burst,
        this.tokens + ((now - this.lastRefill) / 1000) * this.options.writesPerSecond,
      );
      this.lastRefill = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      const wait = ((1 - this.tokens) / this.options.writesPerSecond) * 1000;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.ceil(wait));
        this.wake = () => (clearTimeout(timer), resolve());
      });
      this.wake = undefined;
      if (this.stopped) return;
    }
  }
}

function isomorphicKey(input: EventInput, controller: string): string {
  const ref = (r?: EventObjectReference) =>
    r ? [r.apiVersion ?? '', r.kind, r.namespace ?? '', r.name, r.uid ?? ''].join('/') : '';
  return [controller, input.type, input.reason, input.action, ref(input.regarding), ref(input.related)].join('|');
}

function compactRef(ref: EventObjectReference): EventObjectReference {
  const out: EventObjectReference = { kind: ref.kind, name: ref.name };
  if (ref.apiVersion) out.apiVersion = ref.apiVersion;
  if (ref.namespace) out.namespace = ref.namespace;
  if (ref.uid) out.uid = ref.uid;
  if (ref.resourceVersion) out.resourceVersion = ref.resourceVersion;
  return out;
}

function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = Buffer.from(text)
    .subarray(0, max - 3)
    .toString('utf8');
  // A cut multi-byte character decodes as U+FFFD: drop it.
  out = out.replace(/\uFFFD$/, '');
  return `${out}...`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
