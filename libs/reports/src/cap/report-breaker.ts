/**
 * The cap on admission reports (Kyverno's `--maxAdmissionReports` breaker): a new report is not
 * written while more than `max` exist, or while the count is unknown (counter not synced). Every
 * decision is counted, drops apart, under Kyverno's breaker metric names.
 */
import type { ReportCounter } from './report-counter';

export interface BreakerListener {
  onInvoke(): void;
  onDrop(): void;
}

export class ReportBreaker {
  constructor(
    private readonly counter: ReportCounter,
    private readonly max: number,
    private readonly listener?: BreakerListener,
  ) {}

  /** True when a report may be written now. */
  allow(): boolean {
    this.listener?.onInvoke();
    const { count, running } = this.counter.current();
    const open = !running || count > this.max;
    if (open) this.listener?.onDrop();
    return !open;
  }
}
