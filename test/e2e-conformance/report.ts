/**
 * What `npm run e2e-conformance` prints and writes: a table per top-level folder of the suite,
 * `docs/e2e-conformance.md` with every test and, for failures, the step and the reason, and the
 * machine-readable forms (`--output json|junit`).
 */

/** How one test of the suite ended. `apart`: not run, it needs what an embedded cluster lacks. */
export type E2eOutcome = 'pass' | 'fail' | 'error' | 'apart';

export interface E2eTestRecord {
  /** The test's folder relative to the suite, e.g. `validate/clusterpolicy/standard/enforce/x`. */
  readonly path: string;
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

export function renderTable(scores: E2eScores): string {
  const header = ['folder', 'tests', 'passed', 'failed', 'apart', 'pass rate'];
  const rows = [...scores.folders, scores.admission, scores.total].map((score) => [
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
  return [line(header), rule, ...body.slice(0, -2), rule, ...body.slice(-2)].join('\n');
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

export function renderMarkdown(
  records: readonly E2eTestRecord[],
  scores: E2eScores,
  elapsedMs: number,
  known: KnownFailures,
): string {
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
    const step = record.step ? cell(record.operation ? `${record.step}: ${record.operation}` : record.step) : '';
    lines.push(
      `| \`${record.path}\` | ${record.outcome === 'pass' ? 'pass' : `**${record.outcome}**`} | ${step} | ${cell(record.reason ?? '')} |`,
    );
  }
  return lines.join('\n') + '\n';
}

export function renderJunit(records: readonly E2eTestRecord[], elapsedMs: number): string {
  const suites = new Map<string, E2eTestRecord[]>();
  for (const record of records)
    suites.set(folderOf(record.path), [...(suites.get(folderOf(record.path)) ?? []), record]);
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
