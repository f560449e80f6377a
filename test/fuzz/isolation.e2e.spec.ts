/**
 * The tenant-isolation property on a time-bounded sample (`npm run fuzz` runs 10,000 cases):
 * random namespaced policies from a tenant, applied through the embedded cluster, change nothing
 * outside the tenant's namespace. The seed changes per run unless EDICT_FUZZ_SEED is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsolationTarget } from './isolation-target';
import { tenantIsolation } from './properties';
import { runProperty } from './run-property';

const SEED = Number(process.env.EDICT_FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.EDICT_ISOLATION_RUNS ?? 10_000);
/** The sample stops here (fast-check's time limit), whatever RUNS says. */
const TIME_LIMIT_MS = Number(process.env.EDICT_ISOLATION_TIME_LIMIT_MS ?? 4_000);

describe(`tenant isolation (seed ${SEED}, up to ${RUNS} cases or ${TIME_LIMIT_MS} ms)`, () => {
  let target: IsolationTarget;

  beforeAll(async () => {
    target = await IsolationTarget.start();
  });

  afterAll(async () => {
    await target?.stop();
  });

  it('random namespaced policies change nothing outside their namespace', async () => {
    const report = await runProperty(tenantIsolation(target), {
      seed: SEED,
      numRuns: RUNS,
      timeLimitMs: TIME_LIMIT_MS,
    });
    expect(report.failure ?? '').toBe('');
    expect(report.answered).toBeGreaterThan(0);
  }, 60_000);
});
