import { describe, expect, it } from 'vitest';
import floor from './floor.json';
import { loadConformanceCases } from './suite';
import { formatConformance, groupRate, runConformance } from './tally';

/**
 * CEL's own conformance suite (cel-spec v0.25.1 from `@bufbuild/cel-spec`) through Edict's CEL
 * environment. `floor.json` holds the passes each suite must keep; raise it when fixes land.
 * Set CEL_CONFORMANCE_FAILURES=1 to print every failing test with its reason.
 */
describe('CEL conformance (cel-spec)', () => {
  const run = runConformance(loadConformanceCases());
  console.log(formatConformance(run));
  if (process.env.CEL_CONFORMANCE_FAILURES) {
    for (const failure of run.failures) console.log(`FAIL ${failure.test}: ${failure.reason}`);
  }

  it('covers every suite the floor names, and the floor names every suite', () => {
    expect(run.suites.map((s) => s.suite).sort()).toEqual(Object.keys(floor.passes).sort());
  });

  it.each(run.suites.map((s) => [s.suite, s] as const))('%s keeps its floor of passes', (suite, tally) => {
    expect(tally.pass).toBeGreaterThanOrEqual(floor.passes[suite as keyof typeof floor.passes]);
  });

  it('keeps the rates of the core and the enabled extension suites', () => {
    expect(groupRate(run, 'core').percent).toBeGreaterThanOrEqual(floor.corePercent);
    expect(groupRate(run, 'extension').percent).toBeGreaterThanOrEqual(floor.extensionPercent);
  });
});
