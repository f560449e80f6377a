import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreLine } from '../conformance/corpus';
import { FLOORED_GROUPS, type FlooredGroup } from './classify';
import { checkScore, runCelCorpus } from './corpus';

/**
 * Minimum strict check score (fraction of checks passed) per floored group of policy kinds
 * (`classify.ts`): each group is floored on its own, so one part of the corpus can grow while another
 * holds. Separate from the classic corpus's floor.
 */
type Floor = Record<FlooredGroup, number>;

const floor = JSON.parse(readFileSync(resolve(__dirname, 'floor.json'), 'utf8')) as Floor;

describe('Kyverno CLI conformance corpus, CEL part', () => {
  it(
    'keeps the strict check score of each floored group of policy kinds at or above its floor',
    { timeout: 600_000 },
    async () => {
      const scores = await runCelCorpus();
      const groups = Object.keys(FLOORED_GROUPS) as FlooredGroup[];
      const lines = [
        ...groups.flatMap((group) => [
          scoreLine(`strict, ${group} (floor ${floor[group]})`, scores.byGroup[group]),
          ...FLOORED_GROUPS[group].map((kind) => scoreLine(`  strict, ${kind}`, scores.byKind[kind])),
        ]),
        scoreLine('strict, every test run offline', scores.strict),
        scoreLine('compatible, every test run offline', scores.compatible),
        `apart (need what no offline run has): ${scores.apart.length}`,
        ...scores.apart.map(({ path, reason }) => `  ${path}: ${reason}`),
      ];
      process.stdout.write(`\n${lines.join('\n')}\n`);
      expect(scores.runs.length).toBeGreaterThan(0);
      for (const group of groups) {
        const { checks } = scores.byGroup[group];
        expect(checks.passed + checks.failed, `${group}: no checks counted`).toBeGreaterThan(0);
        expect(checkScore(scores.byGroup[group]), group).toBeGreaterThanOrEqual(floor[group]);
      }
    },
  );
});
