/**
 * A concurrency cap shared fairly between tenants (policy namespaces): at most `maxInFlight` run at
 * once and at most `maxInFlightPerTenant` of one tenant, so one tenant's slow work cannot take every
 * slot; waiters are bounded in all and per tenant, and a freed slot goes to the tenants in turn
 * (round robin), not first come first served, so a tenant with a long queue does not push the
 * others' work behind it. A waiter waits no longer than its own deadline; the rest are refused at
 * once so the caller can answer by its failure policy instead of piling up work nobody waits for.
 */
export type Admission<T> = { admitted: true; value: T } | { admitted: false; reason: 'queue-full' | 'queue-timeout' };

export interface FairLimits {
  readonly maxInFlight: number;
  readonly maxInFlightPerTenant: number;
  readonly maxQueued: number;
  readonly maxQueuedPerTenant: number;
}

interface Waiter {
  readonly grant: () => void;
}

interface Tenant {
  running: number;
  readonly waiting: Waiter[];
}

export class FairLimiter {
  private running = 0;
  private waiting = 0;
  /** Tenants with work running or waiting; the order is the turn order (served ones move to the back). */
  private readonly tenants = new Map<string, Tenant>();
  private readonly idleListeners = new Set<() => void>();

  constructor(private readonly limits: FairLimits) {
    for (const [name, value] of Object.entries(limits))
      if (!Number.isInteger(value) || value < 0)
        throw new Error(`FairLimiter: ${name} must be a whole number, got ${value}`);
    if (limits.maxInFlight < 1 || limits.maxInFlightPerTenant < 1)
      throw new Error('FairLimiter: maxInFlight and maxInFlightPerTenant must be at least 1');
  }

  /** Runs `work` as `tenant` when a slot is free within `waitMs`; otherwise says why it did not. */
  async run<T>(tenant: string, work: () => Promise<T>, waitMs: number): Promise<Admission<T>> {
    const state = this.tenantOf(tenant);
    if (this.running < this.limits.maxInFlight && state.running < this.limits.maxInFlightPerTenant) {
      this.take(state);
    } else {
      if (this.waiting >= this.limits.maxQueued || state.waiting.length >= this.limits.maxQueuedPerTenant) {
        this.forgetIfIdle(tenant, state);
        return { admitted: false, reason: 'queue-full' };
      }
      if (!(await this.waitForSlot(tenant, state, waitMs))) return { admitted: false, reason: 'queue-timeout' };
    }
    try {
      return { admitted: true, value: await work() };
    } finally {
      this.release(tenant, state);
    }
  }

  inFlight(): number {
    return this.running;
  }

  queued(): number {
    return this.waiting;
  }

  /** What one tenant runs and has waiting. */
  tenant(name: string): { inFlight: number; queued: number } {
    const state = this.tenants.get(name);
    return { inFlight: state?.running ?? 0, queued: state?.waiting.length ?? 0 };
  }

  /** Resolves when nothing runs or waits (true), or after `timeoutMs` (false). */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.running === 0 && this.waiting === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.idleListeners.delete(onIdle);
        resolve(idle);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleListeners.add(onIdle);
    });
  }

  private tenantOf(name: string): Tenant {
    let state = this.tenants.get(name);
    if (!state) this.tenants.set(name, (state = { running: 0, waiting: [] }));
    return state;
  }

  private take(state: Tenant): void {
    this.running += 1;
    state.running += 1;
  }

  private waitForSlot(name: string, state: Tenant, waitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(
        () => {
          const index = state.waiting.indexOf(waiter);
          if (index >= 0) {
            state.waiting.splice(index, 1);
            this.waiting -= 1;
          }
          resolve(false);
          this.forgetIfIdle(name, state);
          this.notifyIfIdle();
        },
        Math.max(0, waitMs),
      );
      state.waiting.push(waiter);
      this.waiting += 1;
    });
  }

  private release(name: string, state: Tenant): void {
    this.running -= 1;
    state.running -= 1;
    this.grantWaiters();
    this.forgetIfIdle(name, state);
    this.notifyIfIdle();
  }

  /** Free slots to waiting tenants in turn, each under its own cap. */
  private grantWaiters(): void {
    while (this.running < this.limits.maxInFlight && this.waiting > 0) {
      let served = false;
      for (const [name, state] of this.tenants) {
        if (state.waiting.length === 0 || state.running >= this.limits.maxInFlightPerTenant) continue;
        const waiter = state.waiting.shift()!;
        this.waiting -= 1;
        this.take(state);
        // Its turn is used: to the back of the line.
        this.tenants.delete(name);
        this.tenants.set(name, state);
        waiter.grant();
        served = true;
        break;
      }
      if (!served) return;
    }
  }

  private forgetIfIdle(name: string, state: Tenant): void {
    if (state.running === 0 && state.waiting.length === 0 && this.tenants.get(name) === state)
      this.tenants.delete(name);
  }

  private notifyIfIdle(): void {
    if (this.running !== 0 || this.waiting !== 0) return;
    for (const listener of [...this.idleListeners]) listener();
  }
}
