import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreLine } from '../conformance/corpus';
import { FLOORED_KINDS } from './classify';
import { checkScore, runCelCorpus } from './corpus';

interface Floor {
  /**
   * Minimum strict check score (fraction of checks passed) on the tests whose policies are all
   * ValidatingPolicy, classic validate.cel or ValidatingAdmissionPolicy. Separate from the classic
   * corpus's floor, so this corpus can grow.
   */
  flooredStrictChecks: number;
}

const floor = JSON.parse(readFileSync(resolve(__dirname, 'floor.json'), 'utf8')) as Floor;

describe('Kyverno CLI conformance corpus, CEL part', () => {
  it(
    'keeps the strict check score of ValidatingPolicy, validate.cel and VAP tests at or above the floor',
    { timeout: 600_000 },
    async () => {
      const scores = await runCelCorpus();
      const lines = [
        scoreLine('strict, floored kinds', scores.floored),
        ...FLOORED_KINDS.map((kind) => scoreLine(`  strict, ${kind}`, scores.byKind[kind])),
        scoreLine('strict, every test run offline', scores.strict),
        scoreLine('compatible, every test run offline', scores.compatible),
        `apart (need what no offline run has): ${scores.apart.length}`,
        ...scores.apart.map(({ path, reason }) => `  ${path}: ${reason}`),
      ];
      process.stdout.write(`\n${lines.join('\n')}\n`);
      expect(scores.runs.length).toBeGreaterThan(0);
      expect(scores.floored.checks.passed + scores.floored.checks.failed).toBeGreaterThan(0);
      expect(checkScore(scores.floored)).toBeGreaterThanOrEqual(floor.flooredStrictChecks);
    },
  );
});
