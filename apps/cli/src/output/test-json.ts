import type { TestOutcome, Verdict, VerdictSummary } from '@edict/kyverno-test';

/** The machine-readable report: one entry per test with its checks, and the verdict's totals. */
export function renderTestJson(outcomes: readonly TestOutcome[], summary: VerdictSummary, verdict: Verdict): string {
  const report = {
    verdict,
    tests: outcomes.map((outcome) => ({
      file: outcome.file,
      name: outcome.name,
      passed: outcome.passed,
      errors: outcome.errors,
      checks: outcome.checks.map((check, index) => ({
        id: index + 1,
        policy: check.policy,
        rule: check.rule,
        resource: check.resource,
        expected: check.expected,
        got: check.got,
        passed: check.passed,
        reason: check.reason,
        message: check.message,
      })),
    })),
    summary,
  };
  return JSON.stringify(report, null, 2) + '\n';
}
