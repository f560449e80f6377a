/** Wall clock the renewer decides with; tests pass their own. */
export interface CertClock {
  now(): Date;
}

export const SYSTEM_CLOCK: CertClock = { now: () => new Date() };
