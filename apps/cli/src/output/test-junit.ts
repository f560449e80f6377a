import type { TestOutcome, VerdictSummary } from '@edict/kyverno-test';

/** JUnit XML: a suite per test file, a case per check; load and engine errors become <error> cases. */
export function renderTestJunit(outcomes: readonly TestOutcome[], summary: VerdictSummary): string {
  const total = summary.checks.passed + summary.checks.failed;
  const errors = outcomes.reduce((count, outcome) => count + outcome.errors.length, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="edict" tests="${total + errors}" failures="${summary.checks.failed}" errors="${errors}">`,
  ];
  for (const outcome of outcomes) {
    const failures = outcome.checks.filter((check) => !check.passed).length;
    const name = outcome.name || outcome.file;
    lines.push(
      `  <testsuite name="${xml(name)}" file="${xml(outcome.file)}" tests="${outcome.checks.length + outcome.errors.length}" failures="${failures}" errors="${outcome.errors.length}">`,
    );
    for (const error of outcome.errors) {
      lines.push(
        `    <testcase name="load" classname="${xml(name)}">`,
        `      <error message="${xml(error)}"/>`,
        '    </testcase>',
      );
    }
    for (const check of outcome.checks) {
      const caseName = `${check.policy}/${check.rule}/${check.resource}`;
      if (check.passed) {
        lines.push(`    <testcase name="${xml(caseName)}" classname="${xml(name)}"/>`);
      } else {
        lines.push(
          `    <testcase name="${xml(caseName)}" classname="${xml(name)}">`,
          `      <failure message="${xml(check.reason)}">${xml(`expected ${check.expected}, got ${check.got || 'nothing'}: ${check.message}`)}</failure>`,
          '    </testcase>',
        );
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

function xml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}
