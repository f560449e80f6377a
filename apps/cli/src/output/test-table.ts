import type { TestOutcome, VerdictSummary } from '@edict/kyverno-test';
import { renderTable } from './table';

export interface TableOptions {
  detailed: boolean;
  failOnly: boolean;
}

const HEADERS = ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON'];

/**
 * Kyverno's human output: one table per test, the summary line, then the failed rows gathered and
 * numbered again. Load and engine errors are listed per test file.
 */
export function renderTestTable(
  outcomes: readonly TestOutcome[],
  summary: VerdictSummary,
  options: TableOptions,
): string {
  const parts: string[] = [];
  const failedRows: string[][] = [];
  for (const outcome of outcomes) {
    parts.push(`Test ${outcome.name || outcome.file} (${outcome.file}): ${outcome.passed ? 'passed' : 'failed'}`);
    for (const error of outcome.errors) parts.push(`  Error: ${error}`);
    const rows = outcome.checks
      .map((check, index) => ({ check, row: toRow(index + 1, check, options.detailed) }))
      .filter(({ check }) => !options.failOnly || !check.passed);
    failedRows.push(...rows.filter(({ check }) => !check.passed).map(({ row }) => row));
    if (rows.length > 0)
      parts.push(
        renderTable(
          headers(options.detailed),
          rows.map(({ row }) => row),
          new Set([0]),
        ),
      );
    parts.push('');
  }
  const { tests, checks } = summary;
  parts.push(
    options.failOnly
      ? `Test Summary: ${checks.failed} out of ${checks.passed + checks.failed} tests failed`
      : `Test Summary: ${checks.passed} tests passed and ${checks.failed} tests failed`,
  );
  parts.push(`Test files: ${tests.passed} passed, ${tests.failed} failed`);
  if (failedRows.length > 0 && !options.failOnly) {
    parts.push('', 'Aggregated Failed Test Cases : ');
    parts.push(
      renderTable(
        headers(options.detailed),
        failedRows.map((row, index) => [String(index + 1), ...row.slice(1)]),
        new Set([0]),
      ),
    );
  }
  return parts.join('\n') + '\n';
}

function headers(detailed: boolean): string[] {
  return detailed ? [...HEADERS, 'MESSAGE'] : HEADERS;
}

function toRow(id: number, check: TestOutcome['checks'][number], detailed: boolean): string[] {
  const row = [String(id), check.policy, check.rule, check.resource, check.passed ? 'Pass' : 'Fail', check.reason];
  if (detailed) row.push(check.message);
  return row;
}
