/**
 * Lease-based leader election with client-go's semantics (tools/leaderelection), framework-free:
 *
 * - every attempt runs tryAcquireOrRenew: the leader first renews optimistically over the lease it
 *   last wrote (fast path); otherwise it reads the lease, creates it if missing, and takes it when
 *   nobody holds it (empty holderIdentity) or the holder's record has not changed for
 *   `leaseDurationSeconds` as measured on the local clock from when this replica observed it
 *   (observed time, never the remote renewTime, so clock offsets between nodes do not matter);
 * - the leader renews every retry period; candidates retry every retry period with client-go's
 *   1.2 jitter, but never later than the moment the observed lease expires;
 * - leadership ends at once when another holder is observed, or when no renew has succeeded within
 *   the renew deadline (a timer, so a hung request cannot keep a stale leader working);
 * - `stop({ release: true })` stops leader work first, then writes an empty holder with a 1 s
 *   lease (ReleaseOnCancel), so another replica takes over without waiting for expiry.
 * Candidates that can watch the lease try again as soon as it is released or deleted.
 * Like client-go this does not fence: leader actions must be idempotent.
 */
import type { LeaderElectionRecord } from './lease-record';
import type { LeaseLock, ObservedLease } from './lease-lock';

/** client-go's JitterFactor for the acquire loop. */
export const JITTER_FACTOR = 1.2;

export type StopReason = 'renew-deadline' | 'lost-lease' | 'shutdown';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LeaderCallbacks {
  /** Called synchronously when this replica becomes leader. */
  onStartedLeading(): void;
  /**
   * Called synchronously when leadership ends, before anything else happens. A returned promise is
   * awaited (bounded by the renew deadline) only on shutdown, before the lease is released.
   */
  onStoppedLeading(reason: StopReason): void | Promise<void>;
  /** The observed holder changed (empty string: released). */
  onNewLeader?(identity: string): void;
}

export interface ElectionTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface LeaderElectorConfig extends ElectionTimings {
  readonly lock: LeaseLock;
  readonly identity: string;
  readonly callbacks: LeaderCallbacks;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly log?: (level: LogLevel, message: string) => void;
}

export interface LeaderState {
  readonly identity: string;
  readonly isLeader: boolean;
  /** The holder last observed in the lease (undefined: none yet, or released). */
  readonly leader: string | undefined;
  readonly leaseTransitions: number;
  /** Local time (epoch ms) when the current record was observed. */
  readonly observedAt: number | undefined;
  /** Whether the observed record is still within its lease duration. */
  readonly leaseValid: boolean;
}

/** Checks client-go's constraints between the three durations; returns problems (empty when fine). */
export function timingProblems(t: ElectionTimings): string[] {
  const problems: string[] = [];
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) problems.push('leaseDurationMs must be greater than renewDeadlineMs');
  if (!(t.renewDeadlineMs > t.retryPeriodMs * JITTER_FACTOR)) {
    problems.push(`renewDeadlineMs must be greater than retryPeriodMs * ${JITTER_FACTOR}`);
  }
  if (!(t.leaseDurationMs >= 1000 && t.leaseDurationMs % 1000 === 0)) {
    problems.push('leaseDurationMs must be a whole number of seconds (the Lease stores seconds)');
  }
  if (!(t.retryPeriodMs > 0)) problems.push('retryPeriodMs must be positive');
  return problems;
}

export class LeaderElector {
  readonly identity: string;
  private readonly now: () => number;
  private readonly random: () => number;
  private observed?: LeaderElectionRecord;
  private observedRaw?: string;
  private observedTime?: number;
  private leading = false;
  private running = false;
  private loop?: Promise<void>;
  private attempt = 0;
  private deadlineTimer?: NodeJS.Timeout;
  private wakeSleeper?: () => void;
  private wakeRequested = false;
  private stopWatch?: () => void;
  private reportedLeader?: string;

  constructor(private readonly config: LeaderElectorConfig) {
    const problems = timingProblems(config);
    if (problems.length > 0) throw new Error(`leader election: ${problems.join('; ')}`);
    if (!config.identity) throw new Error('leader election: identity must not be empty');
    this.identity = config.identity;
    this.now = config.now ?? Date.now;
    this.random = config.random ?? Math.random;
  }

  /** Starts contending; returns at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopWatch = this.config.lock.watch?.((lease) => this.onWatched(lease));
    this.loop = this.run();
  }

  /** Stops contending and leader work; with `release`, gives the lease up for an immediate takeover. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.running) {
      this.running = false;
      this.stopWatch?.();
      this.stopWatch = undefined;
      this.wake();
      await this.loop;
    }
    const stopping = this.stopLeading('shutdown');
    if (stopping instanceof Promise) await withTimeout(stopping, this.config.renewDeadlineMs).catch(() => undefined);
    if (options.release) await this.release();
  }

  isLeader(): boolean {
    return this.leading;
  }

  state(): LeaderState {
    const now = this.now();
    return {
      identity: this.identity,
      isLeader: this.leading,
      leader: this.observed?.holderIdentity || undefined,
      leaseTransitions: this.observed?.leaseTransitions ?? 0,
      observedAt: this.observedTime,
      leaseValid: this.leaseValid(now),
    };
  }

  private async run(): Promise<void> {
    while (this.running) {
      const attempt = ++this.attempt;
      const startedAt = this.now();
      let succeeded = false;
      try {
        // A hung request must not stall the loop; a late answer from it is ignored (see `current`).
        succeeded = await withTimeout(this.tryAcquireOrRenew(attempt), this.config.renewDeadlineMs);
      } catch (error) {
        this.log('warn', `lease ${this.config.lock.description}: ${describe(error)}`);
      }
      if (!this.running) break;
      this.afterAttempt(succeeded, startedAt);
      await this.sleep(this.nextDelay());
    }
  }

  private afterAttempt(succeeded: boolean, startedAt: number): void {
    this.reportLeader();
    if (succeeded) {
      // Measured from when the attempt began: the server may have stored it any time after that.
      this.armDeadline(startedAt + this.config.renewDeadlineMs);
      if (!this.leading) {
        this.leading = true;
        this.log('info', `${this.identity} became leader of ${this.config.lock.description}`);
        this.safely(() => this.config.callbacks.onStartedLeading());
      }
    } else if (this.leading && !this.holdsRecord()) {
      this.log(
        'info',
        `${this.identity} lost ${this.config.lock.description} to ${this.observed?.holderIdentity || 'nobody'}`,
      );
      this.stopLeading('lost-lease');
    }
  }

  /** client-go's tryAcquireOrRenew; true when this replica holds the lease afterwards. */
  private async tryAcquireOrRenew(attempt: number): Promise<boolean> {
    const lock = this.config.lock;
    const now = this.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.config.leaseDurationMs / 1000,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };

    // 1. Fast path: the leader renews over the lease it wrote last, without reading it first.
    if (this.holdsRecord() && this.leaseValid(now) && this.observed) {
      const renewed = {
        ...desired,
        acquireTime: this.observed.acquireTime,
        leaseTransitions: this.observed.leaseTransitions,
      };
      try {
        await lock.update(renewed);
        if (!this.current(attempt)) return false;
        this.setObserved(renewed);
        return true;
      } catch (error) {
        this.log('debug', `optimistic renew of ${lock.description} failed (${describe(error)}); reading it`);
      }
    }

    // 2. Read the lease, or create it.
    const existing = await lock.get();
    if (!this.current(attempt)) return false;
    if (!existing) {
      await lock.create(desired);
      if (!this.current(attempt)) return false;
      this.setObserved(desired);
      return true;
    }

    // 3. A record we had not seen restarts the expiry clock (observed time, local).
    this.observe(existing);
    if (existing.record.holderIdentity !== '' && this.leaseValid(now) && !this.holdsRecord()) return false;

    // 4. Take it (free or expired) or renew it (ours).
    const next: LeaderElectionRecord = this.holdsRecord()
      ? { ...desired, acquireTime: existing.record.acquireTime, leaseTransitions: existing.record.leaseTransitions }
      : { ...desired, leaseTransitions: existing.record.leaseTransitions + 1 };
    await lock.update(next);
    if (!this.current(attempt)) return false;
    this.setObserved(next);
    return true;
  }

  private async release(): Promise<void> {
    if (!this.holdsRecord() || !this.observed) return;
    const now = this.now();
    const released: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed.leaseTransitions,
    };
    try {
      await withTimeout(this.config.lock.update(released), this.config.renewDeadlineMs);
      this.setObserved(released);
      this.log('info', `${this.identity} released ${this.config.lock.description}`);
    } catch (error) {
      this.log('warn', `release of ${this.config.lock.description} failed: ${describe(error)}`);
    }
  }

  private onWatched(lease: ObservedLease | undefined): void {
    if (!this.running) return;
    if (this.leading) {
      // Someone else wrote it: check now rather than at the next renew.
      if (lease && lease.record.holderIdentity !== this.identity) this.wake();
      return;
    }
    if (lease) this.observe(lease);
    if (!lease || lease.record.holderIdentity === '') this.wake();
  }

  private stopLeading(reason: StopReason): void | Promise<void> {
    this.clearDeadline();
    if (!this.leading) return;
    this.leading = false;
    this.log('info', `${this.identity} stopped leading ${this.config.lock.description} (${reason})`);
    return this.safely(() => this.config.callbacks.onStoppedLeading(reason));
  }

  private armDeadline(at: number): void {
    this.clearDeadline();
    this.deadlineTimer = setTimeout(
      () => {
        this.deadlineTimer = undefined;
        this.log('warn', `${this.identity} could not renew ${this.config.lock.description} within the renew deadline`);
        this.stopLeading('renew-deadline');
      },
      Math.max(0, at - this.now()),
    );
  }

  private clearDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
  }

  private nextDelay(): number {
    const retry = this.config.retryPeriodMs;
    if (this.leading) return retry;
    const jittered = retry * (1 + this.random() * JITTER_FACTOR);
    if (!this.observed || this.observedTime === undefined || this.holdsRecord()) return jittered;
    // Try again the moment the observed lease expires if that comes before the next retry.
    const expiresIn = this.observedTime + this.observed.leaseDurationSeconds * 1000 - this.now() + 1;
    return Math.max(0, Math.min(jittered, expiresIn));
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested || !this.running) {
      this.wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = () => {
        this.wakeSleeper = undefined;
        done();
      };
    });
  }

  private wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.wakeRequested = true;
  }

  private observe(lease: ObservedLease): void {
    if (lease.raw !== this.observedRaw) this.setObserved(lease.record, lease.raw);
  }

  private setObserved(record: LeaderElectionRecord, raw = JSON.stringify(record)): void {
    this.observed = record;
    this.observedRaw = raw;
    this.observedTime = this.now();
  }

  /** client-go's IsLeader: the observed record names this replica. */
  private holdsRecord(): boolean {
    return this.observed?.holderIdentity === this.identity;
  }

  private leaseValid(now: number): boolean {
    if (!this.observed || this.observedTime === undefined) return false;
    return this.observedTime + this.observed.leaseDurationSeconds * 1000 > now;
  }

  private current(attempt: number): boolean {
    return attempt === this.attempt;
  }

  private reportLeader(): void {
    const holder = this.observed?.holderIdentity;
    if (holder === undefined || holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.safely(() => this.config.callbacks.onNewLeader?.(holder));
  }

  private safely<T>(call: () => T): T | undefined {
    try {
      return call();
    } catch (error) {
      this.log('error', `leader callback failed: ${describe(error)}`);
      return undefined;
    }
  }

  private log(level: LogLevel, message: string): void {
    this.config.log?.(level, message);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'number' ? `HTTP ${code}: ${error.message.split('\n')[0]}` : error.message;
  }
  return String(error);
}
