/**
 * What `npm run e2e-conformance` prints and writes: a table per top-level folder of the suite,
 * `docs/e2e-conformance.md` with every test and, for failures, the step and the reason, and the
 * machine-readable forms (`--output json|junit`).
 */

/** How one test of the suite ended. `apart`: not run, it needs what an embedded cluster lacks. */
export type E2eOutcome = 'pass' | 'fail' | 'error' | 'apart';

export interface E2eTestRecord {
  /**
   * The test's folder relative to the suite, e.g. `validate/clusterpolicy/standard/enforce/x`; for a
   * local twin, relative to test/e2e-image-verification.
   */
  readonly path: string;
  /** A local twin (test/e2e-image-verification), scored apart from Kyverno's suite. */
  readonly local?: true;
  readonly name: string;
  readonly outcome: E2eOutcome;
  readonly durationMs: number;
  /** For `fail` and `error`: where it failed and why; for `apart`: the reason it is not run. */
  readonly step?: string;
  readonly operation?: string;
  readonly reason?: string;
}

export interface FolderScore {
  readonly folder: string;
  readonly tests: number;
  readonly passed: number;
  readonly failed: number;
  readonly apart: number;
}

export interface E2eScores {
  readonly folders: readonly FolderScore[];
  /** The folders whose tests need only the admission controller, taken together. */
  readonly admission: FolderScore;
  readonly total: FolderScore;
}

/** Folders whose tests need only the admission controller (issue 10's yardstick). */
export const ADMISSION_FOLDERS: readonly string[] = [
  'validate',
  'policy-validation',
  'exceptions',
  'filter',
  'webhooks',
  'webhook-configurations',
  'deferred',
  'rangeoperators',
  'autogen',
  'tls-certificates',
  'globalcontext',
  'events',
  'cli',
];

export function folderOf(path: string): string {
  return path.split('/')[0] ?? path;
}

export function scoreOf(records: readonly E2eTestRecord[]): E2eScores {
  const byFolder = new Map<string, E2eTestRecord[]>();
  for (const record of records) {
    const folder = folderOf(record.path);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), record]);
  }
  const folders = [...byFolder.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, tests]) => tally(folder, tests));
  return {
    folders,
    admission: tally(
      'admission-only folders',
      records.filter((record) => ADMISSION_FOLDERS.includes(folderOf(record.path))),
    ),
    total: tally('all', records),
  };
}

function tally(folder: string, records: readonly E2eTestRecord[]): FolderScore {
  const count = (outcome: E2eOutcome): number => records.filter((record) => record.outcome === outcome).length;
  const apart = count('apart');
  const passed = count('pass');
  return { folder, tests: records.length, passed, apart, failed: records.length - passed - apart };
}

/** Passed tests as a share of the tests that were run (those counted apart excluded). */
export function passRate({ passed, tests, apart }: FolderScore): number {
  return passed / Math.max(1, tests - apart);
}

function percent(score: FolderScore): string {
  return `${(passRate(score) * 100).toFixed(1)}%`;
}

/** `withAdmission`: the admission-only line (Kyverno's suite; the local twins have none). */
export function renderTable(scores: E2eScores, withAdmission = true): string {
  const header = ['folder', 'tests', 'passed', 'failed', 'apart', 'pass rate'];
  const totals = withAdmission ? [scores.admission, scores.total] : [scores.total];
  const rows = [...scores.folders, ...totals].map((score) => [
    score.folder,
    String(score.tests),
    String(score.passed),
    String(score.failed),
    String(score.apart),
    percent(score),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const body = rows.map(line);
  return [line(header), rule, ...body.slice(0, -totals.length), rule, ...body.slice(-totals.length)].join('\n');
}

/**
 * Why known failures fail, by path prefix (a folder or a test): what Edict lacks, in words. The
 * longest matching prefix explains a test.
 */
export type KnownFailures = Readonly<Record<string, string>>;

export function explain(path: string, known: KnownFailures): string | undefined {
  const prefixes = Object.keys(known)
    .filter((prefix) => path === prefix || path.startsWith(`${prefix}/`))
    .sort((a, b) => b.length - a.length);
  return prefixes[0] === undefined ? undefined : known[prefixes[0]];
}

/** Entries of known-failures.json that match only passing tests: stale, to be removed. */
export function staleKnownFailures(records: readonly E2eTestRecord[], known: KnownFailures): string[] {
  return Object.keys(known).filter((prefix) => {
    const matched = records.filter((record) => explain(record.path, { [prefix]: '' }) !== undefined);
    return matched.length > 0 && matched.every((record) => record.outcome === 'pass' || record.outcome === 'apart');
  });
}

/** Kyverno's suite and the local twins, each scored on its own so the suite's figures stay comparable. */
export function splitRecords(records: readonly E2eTestRecord[]): {
  suite: E2eTestRecord[];
  local: E2eTestRecord[];
} {
  return {
    suite: records.filter((record) => record.local !== true),
    local: records.filter((record) => record.local === true),
  };
}

export function renderMarkdown(
  allRecords: readonly E2eTestRecord[],
  scores: E2eScores,
  elapsedMs: number,
  known: KnownFailures,
): string {
  const { suite: records, local } = splitRecords(allRecords);
  const failing = records.filter((record) => record.outcome === 'fail' || record.outcome === 'error');
  const byReason = new Map<string, string[]>();
  for (const record of failing) {
    const why = explain(record.path, known) ?? 'not yet explained';
    byReason.set(why, [...(byReason.get(why) ?? []), record.path]);
  }
  const lines = [
    '# End-to-end conformance',
    '',
    "Generated by `npm run e2e-conformance` from Kyverno's chainsaw suite (`../shared/chainsaw`, see its README),",
    'run against Edict on the embedded cluster. Do not edit by hand.',
    '',
    `Run time: ${(elapsedMs / 60_000).toFixed(1)} min. Pass rates exclude the tests counted apart (not run: they need`,
    'what an embedded cluster lacks, each with its reason below).',
    '',
    '| folder | tests | passed | failed | apart | pass rate |',
    '|---|---|---|---|---|---|',
    ...[...scores.folders, scores.admission, scores.total].map(
      (s) => `| ${s.folder} | ${s.tests} | ${s.passed} | ${s.failed} | ${s.apart} | ${percent(s)} |`,
    ),
    '',
    '## Why the failing tests fail',
    '',
    "From `test/e2e-conformance/known-failures.json`; the table below gives each failure's step and the",
    "runner's reason.",
    '',
    ...[...byReason.entries()]
      .sort(([, a], [, b]) => b.length - a.length)
      .flatMap(([why, paths]) => [`- ${why} (${paths.length}): ${paths.map((path) => `\`${path}\``).join(', ')}`]),
    '',
    '## Every test',
    '',
    '| test | outcome | step | reason |',
    '|---|---|---|---|',
  ];
  for (const record of [...records].sort((a, b) => a.path.localeCompare(b.path))) {
    lines.push(testRow(record));
  }
  if (local.length > 0) lines.push('', ...localSection(local));
  return lines.join('\n') + '\n';
}

/**
 * The twins of test/e2e-image-verification: Edict's own tests, one per behaviour of a suite test
 * that needs a public registry, against a registry the run starts on loopback.
 */
function localSection(records: readonly E2eTestRecord[]): string[] {
  const scores = scoreOf(records);
  return [
    '## Local twins (`test/e2e-image-verification`)',
    '',
    "Not Kyverno's tests and not in the figures above: for each test of the suite counted apart because it",
    'needs a public registry (`test/e2e-conformance/apart.json` names its twin), a twin with the same policy',
    'semantics runs against a `docker-registry` started for the run on loopback, with images, signatures and',
    'attestations made by the run.',
    '',
    '| folder | tests | passed | failed | apart | pass rate |',
    '|---|---|---|---|---|---|',
    ...[...scores.folders, scores.total].map(
      (s) => `| ${s.folder} | ${s.tests} | ${s.passed} | ${s.failed} | ${s.apart} | ${percent(s)} |`,
    ),
    '',
    '| twin | outcome | step | reason |',
    '|---|---|---|---|',
    ...[...records].sort((a, b) => a.path.localeCompare(b.path)).map(testRow),
  ];
}

function testRow(record: E2eTestRecord): string {
  const step = record.step ? cell(record.operation ? `${record.step}: ${record.operation}` : record.step) : '';
  return `| \`${record.path}\` | ${record.outcome === 'pass' ? 'pass' : `**${record.outcome}**`} | ${step} | ${cell(record.reason ?? '')} |`;
}

export function renderJunit(records: readonly E2eTestRecord[], elapsedMs: number): string {
  const suites = new Map<string, E2eTestRecord[]>();
  const suiteOf = (record: E2eTestRecord): string =>
    record.local ? `e2e-image-verification/${folderOf(record.path)}` : folderOf(record.path);
  for (const record of records) suites.set(suiteOf(record), [...(suites.get(suiteOf(record)) ?? []), record]);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = records.filter((record) => record.outcome === 'fail').length;
  const errors = records.filter((record) => record.outcome === 'error').length;
  out.push(
    `<testsuites name="e2e-conformance" tests="${records.length}" failures="${failures}" errors="${errors}" time="${seconds(elapsedMs)}">`,
  );
  for (const [folder, tests] of suites) {
    out.push(`  <testsuite name="${xml(folder)}" tests="${tests.length}">`);
    for (const test of tests) {
      out.push(`    <testcase classname="${xml(folder)}" name="${xml(test.path)}" time="${seconds(test.durationMs)}">`);
      const detail = xml([test.step, test.operation, test.reason].filter(Boolean).join(': '));
      if (test.outcome === 'fail') out.push(`      <failure message="${detail}"/>`);
      if (test.outcome === 'error') out.push(`      <error message="${detail}"/>`);
      if (test.outcome === 'apart') out.push(`      <skipped message="${detail}"/>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cell(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
  return flat.length > 400 ? `${flat.slice(0, 400)}…` : flat;
}
