import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerdictSummary } from '@edict/kyverno-test';
import { runCorpus, scoreLine } from './corpus';
import { renderConformanceMarkdown } from './markdown-report';

interface Floor {
  /** Minimum strict check score on the whole corpus, as a fraction of checks passed. */
  strictChecks: number;
  /** Minimum strict check score on the tests whose policies have only validate rules. */
  validateOnlyStrictChecks: number;
}

function checkScore({ checks }: VerdictSummary): number {
  return checks.passed / Math.max(1, checks.passed + checks.failed);
}

const floor = JSON.parse(readFileSync(resolve(__dirname, 'floor.json'), 'utf8')) as Floor;
describe('Kyverno CLI conformance corpus', () => {
  it('keeps the strict check score at or above the floor', { timeout: 600_000 }, async () => {
    const scores = await runCorpus();
    const report = [
      scoreLine('strict', scores.strict),
      scoreLine('compatible', scores.compatible),
      scoreLine('strict, validate-only', scores.validateOnlyStrict),
    ].join('\n');
    process.stdout.write(`\n${report}\n`);
    if (process.env.EDICT_CONFORMANCE_REPORT) {
      writeFileSync(resolve(__dirname, '../../docs/conformance.md'), renderConformanceMarkdown(scores));
      process.stdout.write('docs/conformance.md written\n');
    }
    expect(scores.runs.length).toBeGreaterThan(0);
    expect(checkScore(scores.strict)).toBeGreaterThanOrEqual(floor.strictChecks);
    expect(checkScore(scores.validateOnlyStrict)).toBeGreaterThanOrEqual(floor.validateOnlyStrictChecks);
  });
});
