import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir, corpusExists, runCorpus, scoreLine } from './corpus';
import { renderConformanceMarkdown } from './markdown-report';

interface Floor {
  /** Minimum strict check score, as a fraction of checks passed. */
  strictChecks: number;
}

const floor = JSON.parse(readFileSync(resolve(__dirname, 'floor.json'), 'utf8')) as Floor;
const present = corpusExists();

describe.skipIf(!present)('Kyverno CLI conformance corpus', () => {
  it('keeps the strict check score at or above the floor', { timeout: 600_000 }, async () => {
    const scores = await runCorpus();
    const report = [scoreLine('strict', scores.strict), scoreLine('compatible', scores.compatible)].join('\n');
    process.stdout.write(`\n${report}\n`);
    if (process.env.EDICT_CONFORMANCE_REPORT) {
      writeFileSync(resolve(__dirname, '../../docs/conformance.md'), renderConformanceMarkdown(scores));
      process.stdout.write('docs/conformance.md written\n');
    }
    const { passed, failed } = scores.strict.checks;
    expect(scores.runs.length).toBeGreaterThan(0);
    expect(passed / Math.max(1, passed + failed)).toBeGreaterThanOrEqual(floor.strictChecks);
  });
});

if (!present) {
  describe('Kyverno CLI conformance corpus', () => {
    it.skip(`skipped: corpus not found at ${corpusDir()} (set EDICT_CONFORMANCE_DIR)`, () => {});
  });
}
