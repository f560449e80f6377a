/**
 * What the classic and the CEL policy status writers share: their options (checked the same way),
 * and when a pass runs. A pass is triggered by the policy cache's changes and by the webhook
 * controller's publications, debounced; a pending pass is pulled forward for a sooner one but never
 * pushed back (a steady stream of changes must not keep every status waiting); passes never overlap
 * (a call during one waits for it, then runs a fresh one). The last publication is kept, and
 * forgotten when a new leadership term starts, so a new leader waits for its own webhook pass
 * before judging readiness.
 */
import type { Logger } from '@nestjs/common';
import { errorMessage } from '@edict/foundation';
import type { LeaderGate } from '@edict/leader';
import { SerialPass } from '@edict/work-queue';
import type { WebhookPublication } from './policy-status';
import type { WebhookPublicationSource } from './ports';

export interface StatusWriterOptions {
  /** Quiet time before a pass (default 100 ms): a relist or a publication burst makes one pass. */
  readonly debounceMs?: number;
  /** Delay before a pass retries writes that failed for a reason other than a conflict (default 2 s). */
  readonly retryMs?: number;
  /** Fresh reads and writes after a conflict, per policy and pass (default 3). */
  readonly maxConflictRetries?: number;
  /** The clock for transition times (tests). */
  readonly now?: () => Date;
}

export type ResolvedStatusWriterOptions = Required<StatusWriterOptions>;

/** The options with their defaults; a count that is not a non-negative integer is refused, naming `owner`. */
export function statusWriterOptions(owner: string, options: StatusWriterOptions): ResolvedStatusWriterOptions {
  const nonNegative = (name: string, value: number): number => {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`${owner} options: ${name}: expected a non-negative integer, got ${value}`);
    }
    return value;
  };
  return {
    debounceMs: nonNegative('debounceMs', options.debounceMs ?? 100),
    retryMs: nonNegative('retryMs', options.retryMs ?? 2_000),
    maxConflictRetries: nonNegative('maxConflictRetries', options.maxConflictRetries ?? 3),
    now: options.now ?? (() => new Date()),
  };
}

export interface StatusPassTriggers {
  /** The policy cache's changes. */
  onChange(listener: () => void): () => void;
  readonly publications: WebhookPublicationSource;
  readonly leader: LeaderGate;
}

export class StatusPasses<Outcome> {
  private readonly subscriptions: Array<() => void> = [];
  private readonly passes: SerialPass<Outcome>;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private stoppedFlag = false;
  private publication: WebhookPublication | undefined;

  constructor(
    private readonly triggers: StatusPassTriggers,
    private readonly debounceMs: number,
    pass: () => Promise<Outcome>,
    private readonly logger: Pick<Logger, 'warn'>,
    /** Names the passes in the log (`policy status`). */
    private readonly what: string,
    /** What a due timer calls: the owner's own `sync` (default: this one's). */
    private readonly due: () => Promise<unknown> = () => this.sync(),
  ) {
    this.passes = new SerialPass(pass);
  }

  /** Subscribes to the triggers (again after `stop`); a second call while started does nothing. */
  start(): void {
    if (this.subscriptions.length > 0) return;
    this.stoppedFlag = false;
    this.subscriptions.push(
      this.triggers.onChange(() => this.schedule()),
      this.triggers.publications.onPublished((publication) => {
        this.publication = publication;
        this.schedule();
      }),
    );
    // A new term starts without a publication: wait for this leader's own webhook pass.
    const off = this.triggers.leader.onStartedLeading?.(() => (this.publication = undefined));
    if (off) this.subscriptions.push(off);
  }

  stop(): void {
    this.stoppedFlag = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const off of this.subscriptions.splice(0)) off();
  }

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** The publication readiness is judged against (undefined until the first one of this term). */
  lastPublication(): WebhookPublication | undefined {
    return this.publication;
  }

  /** A pass `delayMs` (default: the debounce) from now, unless one is due sooner. */
  schedule(delayMs = this.debounceMs): void {
    if (this.stoppedFlag) return;
    const dueAt = Date.now() + delayMs;
    if (this.timer && this.dueAt <= dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due().catch((error: unknown) => this.logger.warn(`${this.what} pass failed: ${errorMessage(error)}`));
    }, delayMs);
    this.timer.unref?.();
  }

  /** One pass now; callers during a pass wait for it, then share a fresh one. */
  sync(): Promise<Outcome> {
    return this.passes.run();
  }
}
