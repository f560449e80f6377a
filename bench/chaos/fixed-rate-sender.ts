/**
 * Open-loop load at a fixed rate: `send` is started `perSecond` times a second (in ticks) until
 * stopped or `limit` sends, with at most `MAX_IN_FLIGHT` unanswered at once (beyond that ticks skip,
 * and the rate drops, visibly). A send that resolves was admitted; one that rejects failed, kept
 * with the time it was answered so a run can tell when failures happened.
 */

export interface LoadFailure {
  /** ms since the load started. */
  atMs: number;
  /** The HTTP status when there was one (0: the call itself failed). */
  status: number;
  message: string;
}

export interface LoadTally {
  sent: number;
  admitted: number;
  failed: number;
  /** The first failures, for the report. */
  failures: LoadFailure[];
  seconds: number;
}

/** A failed send with the status it was answered. */
export class LoadRejection extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const KEPT_FAILURES = 20;
export const MAX_IN_FLIGHT = 256;
const TICK_MS = 20;

export class FixedRateSender {
  private readonly tally: LoadTally = { sent: 0, admitted: 0, failed: 0, failures: [], seconds: 0 };
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private idle: (() => void) | undefined;

  constructor(
    private readonly perSecond: number,
    private readonly limit: number,
    private readonly send: () => Promise<void>,
  ) {
    if (!(perSecond > 0)) throw new RangeError(`the rate must be positive, got ${perSecond}`);
  }

  start(): void {
    this.startedAt = performance.now();
    this.timer = setInterval(() => {
      const elapsed = (performance.now() - this.startedAt) / 1000;
      const due = Math.min(this.limit, Math.floor(elapsed * this.perSecond));
      while (this.tally.sent < due && this.inFlight < MAX_IN_FLIGHT) this.sendOne();
    }, TICK_MS);
  }

  /** Stops sending, waits for the answers still due and returns the tally. */
  async stop(): Promise<LoadTally> {
    clearInterval(this.timer);
    this.tally.seconds = (performance.now() - this.startedAt) / 1000;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    return this.tally;
  }

  private sendOne(): void {
    this.tally.sent++;
    this.inFlight++;
    this.send().then(
      () => {
        this.tally.admitted++;
        this.done();
      },
      (error: Error) => {
        this.fail(
          error instanceof LoadRejection ? error.status : ((error as { code?: number }).code ?? 0),
          error.message,
        );
        this.done();
      },
    );
  }

  private fail(status: number, message: string): void {
    this.tally.failed++;
    if (this.tally.failures.length < KEPT_FAILURES)
      this.tally.failures.push({ atMs: Math.round(performance.now() - this.startedAt), status, message });
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.idle?.();
  }
}
