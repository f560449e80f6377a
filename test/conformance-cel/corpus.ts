import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import {
  defaultEngineFactory,
  outcome,
  runTests,
  summarize,
  type TestRun,
  type VerdictSummary,
} from '@edict/kyverno-test';
import {
  FLOORED_GROUPS,
  FLOORED_KINDS,
  flooredGroupOf,
  flooredKindOf,
  policyKindsOf,
  type FlooredGroup,
  type FlooredKind,
} from './classify';

/** The CEL corpus folder: $EDICT_CONFORMANCE_CEL_DIR, else ../shared/conformance-cel beside the repo. */
export function celCorpusDir(): string {
  return process.env.EDICT_CONFORMANCE_CEL_DIR ?? resolve(__dirname, '../../../shared/conformance-cel');
}

export function requireCelCorpusDir(): string {
  const dir = celCorpusDir();
  if (!existsSync(dir)) {
    throw new Error(
      `Kyverno's CLI test corpus (CEL part) is not at ${dir}: put it at ../shared/conformance-cel beside the repository, or set EDICT_CONFORMANCE_CEL_DIR`,
    );
  }
  return dir;
}

/** Tests that need what no offline run has (an image registry on the internet), with the reason. */
export function offlineTests(): Record<string, string> {
  return JSON.parse(readFileSync(resolve(__dirname, 'offline.json'), 'utf8')) as Record<string, string>;
}

export interface CelRun {
  run: TestRun;
  /** Path below the corpus folder. */
  path: string;
  kinds: string[];
  /** The floored group and kind the test counts under, when all its policies are of one group. */
  group?: FlooredGroup;
  floored?: FlooredKind;
  /** Why the test cannot run offline, when it cannot. */
  offline?: string;
}

export interface CelCorpusScores {
  runs: CelRun[];
  /** Every test that can run offline. */
  strict: VerdictSummary;
  compatible: VerdictSummary;
  /** Per floored group, the tests whose policies are all of that group's kinds. */
  byGroup: Record<FlooredGroup, VerdictSummary>;
  byKind: Record<FlooredKind, VerdictSummary>;
  /** Tests counted apart, with the reason. */
  apart: { path: string; reason: string }[];
}

/** Runs every test of the CEL corpus in-process with the real engines and scores it. */
export async function runCelCorpus(): Promise<CelCorpusScores> {
  const dir = requireCelCorpusDir();
  const offline = offlineTests();
  const { runs } = await runTests([dir], { cwd: dir, engineFactory: defaultEngineFactory });
  const celRuns = runs.map((run): CelRun => {
    const file = resolve(dir, run.file);
    const path = relative(dir, file);
    const kinds = policyKindsOf(file);
    const group = flooredGroupOf(kinds);
    const floored = flooredKindOf(kinds);
    return {
      run,
      path,
      kinds,
      ...(group ? { group } : {}),
      ...(floored ? { floored } : {}),
      ...(offline[path] ? { offline: offline[path] } : {}),
    };
  });
  const online = celRuns.filter((entry) => entry.offline === undefined);
  const strictOf = (entries: readonly CelRun[]) => summarize(entries.map((entry) => outcome(entry.run, 'strict')));
  const byKind = Object.fromEntries(
    FLOORED_KINDS.map((kind) => [kind, strictOf(online.filter((entry) => entry.floored === kind))]),
  ) as Record<FlooredKind, VerdictSummary>;
  return {
    runs: celRuns,
    strict: strictOf(online),
    compatible: summarize(online.map((entry) => outcome(entry.run, 'compatible'))),
    byGroup: Object.fromEntries(
      (Object.keys(FLOORED_GROUPS) as FlooredGroup[]).map((group) => [
        group,
        strictOf(online.filter((entry) => entry.group === group)),
      ]),
    ) as Record<FlooredGroup, VerdictSummary>,
    byKind,
    apart: celRuns.flatMap((entry) => (entry.offline ? [{ path: entry.path, reason: entry.offline }] : [])),
  };
}

export function checkScore({ checks }: VerdictSummary): number {
  return checks.passed / Math.max(1, checks.passed + checks.failed);
}
