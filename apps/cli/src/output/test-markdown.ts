import { stringify } from 'yaml';
import type { TestOutcome, Verdict, VerdictSummary } from '@edict/kyverno-test';
import { renderTestJson } from './test-json';

/** `--output-format yaml`: the JSON report (`--output json`) as YAML. */
export function renderTestYaml(outcomes: readonly TestOutcome[], summary: VerdictSummary, verdict: Verdict): string {
  return stringify(JSON.parse(renderTestJson(outcomes, summary, verdict)), { lineWidth: 0 });
}

/**
 * `--output-format markdown`: a section per test with its checks as a Markdown table (the table
 * output's columns, MESSAGE with `--detailed-results`), then the summary lines.
 */
export function renderTestMarkdown(
  outcomes: readonly TestOutcome[],
  summary: VerdictSummary,
  options: { detailed: boolean; failOnly: boolean },
): string {
  const headers = ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON', ...(options.detailed ? ['MESSAGE'] : [])];
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const parts: string[] = [];
  for (const outcome of outcomes) {
    parts.push(
      `## ${outcome.name || outcome.file}`,
      '',
      `\`${outcome.file}\`: ${outcome.passed ? 'passed' : 'failed'}`,
      '',
    );
    for (const error of outcome.errors) parts.push(`- Error: ${cell(error)}`);
    if (outcome.errors.length > 0) parts.push('');
    const rows = outcome.checks
      .map((check, index) => ({ check, index }))
      .filter(({ check }) => !options.failOnly || !check.passed);
    if (rows.length === 0) continue;
    parts.push(line(headers), line(headers.map(() => '---')));
    for (const { check, index } of rows) {
      const row = [
        String(index + 1),
        check.policy,
        check.rule,
        check.resource,
        check.passed ? 'Pass' : 'Fail',
        check.reason,
      ];
      if (options.detailed) row.push(check.message);
      parts.push(line(row));
    }
    parts.push('');
  }
  const { tests, checks } = summary;
  parts.push(`**Test Summary:** ${checks.passed} tests passed and ${checks.failed} tests failed`, '');
  parts.push(`**Test files:** ${tests.passed} passed, ${tests.failed} failed`);
  return parts.join('\n') + '\n';
}

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}
