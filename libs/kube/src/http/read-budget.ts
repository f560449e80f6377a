/**
 * A token bucket for live API reads that request fields decide (a namespace the informer has not
 * seen): `burst` reads at once, refilled at `perSecond`. Anything that reaches the webhook port can
 * send reviews naming made-up namespaces; without a budget each one would cost an API read.
 */
export class ReadBudget {
  private tokens: number;
  private at: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perSecond > 0) || !(burst >= 1))
      throw new RangeError(`a read budget needs perSecond > 0 and burst >= 1, got ${perSecond} and ${burst}`);
    this.tokens = burst;
    this.at = now();
  }

  /** Takes one read from the budget; false when it is spent for now. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
