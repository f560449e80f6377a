/**
 * The fuzz properties on a small sample (`npm run fuzz` runs them at length): random and malformed
 * AdmissionReviews through the real controller, random policies through its policy validation
 * webhook and through the engine. The seed changes per run unless EDICT_FUZZ_SEED is set; a
 * failure prints it with the shrunk counterexample.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerTarget } from './controller-target';
import {
  compileAndEvaluate,
  malformedReviews,
  policyValidationWebhook,
  wellFormedReviews,
  type FuzzProperty,
} from './properties';
import { runProperty } from './run-property';

const SEED = Number(process.env.EDICT_FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.EDICT_FUZZ_RUNS ?? 300);

describe(`fuzz (seed ${SEED}, ${RUNS} cases per property)`, () => {
  let target: ControllerTarget;

  beforeAll(async () => {
    target = await ControllerTarget.start();
  });

  afterAll(async () => {
    await target?.stop();
  });

  const cases: Array<[string, () => FuzzProperty<never>]> = [
    [
      'well-formed reviews are evaluated and answered with their uid',
      () => wellFormedReviews(target) as FuzzProperty<never>,
    ],
    [
      'malformed reviews get an answer or a 4xx naming the field',
      () => malformedReviews(target) as FuzzProperty<never>,
    ],
    [
      'random policies are admitted or refused with the field',
      () => policyValidationWebhook(target) as FuzzProperty<never>,
    ],
    ['random policies compile and evaluate without throwing', () => compileAndEvaluate() as FuzzProperty<never>],
  ];

  it.each(cases)(
    '%s',
    async (_, make) => {
      const report = await runProperty(make(), { seed: SEED, numRuns: RUNS });
      expect(report.failure ?? '').toBe('');
      expect(report.runs).toBe(RUNS);
    },
    120_000,
  );
});
