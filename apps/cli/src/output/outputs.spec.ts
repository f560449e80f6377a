import { describe, expect, it } from 'vitest';
import { summarize, type TestOutcome } from '@edict/kyverno-test';
import { renderTable } from './table';
import { renderTestJson } from './test-json';
import { renderTestJunit } from './test-junit';
import { renderTestTable } from './test-table';

const outcomes: TestOutcome[] = [
  {
    file: 'a/kyverno-test.yaml',
    name: 'a',
    errors: [],
    passed: false,
    checks: [
      {
        entry: 0,
        policy: 'p',
        rule: 'r',
        resource: 'Pod/x',
        expected: 'pass',
        got: 'pass',
        passed: true,
        reason: 'Ok',
        message: 'fine',
      },
      {
        entry: 1,
        policy: 'p',
        rule: 'r',
        resource: 'Pod/y',
        expected: 'pass',
        got: 'fail',
        passed: false,
        reason: 'Want pass, got fail',
        message: 'bad <thing> & "more"',
      },
    ],
  },
  {
    file: 'b/kyverno-test.yaml',
    name: '',
    errors: ['b/policy.yaml: spec.rules: expected a list'],
    passed: false,
    checks: [],
  },
];
const summary = summarize(outcomes);

describe('renderTable', () => {
  it('draws a box table with right-aligned numeric columns', () => {
    expect(
      renderTable(
        ['ID', 'NAME'],
        [
          ['1', 'a'],
          ['10', 'long\nname'],
        ],
        new Set([0]),
      ),
    ).toBe(
      [
        '┌────┬───────────┐',
        '│ ID │ NAME      │',
        '├────┼───────────┤',
        '│  1 │ a         │',
        '│ 10 │ long name │',
        '└────┴───────────┘',
      ].join('\n'),
    );
  });
});

describe('table output', () => {
  it('prints a table per test, Kyverno’s summary line and the failed rows again', () => {
    const text = renderTestTable(outcomes, summary, { detailed: false, failOnly: false });
    expect(text).toContain('│ ID │ POLICY │ RULE │ RESOURCE │ RESULT │ REASON              │');
    expect(text).toContain('│  2 │ p      │ r    │ Pod/y    │ Fail   │ Want pass, got fail │');
    expect(text).toContain('Test Summary: 1 tests passed and 1 tests failed');
    expect(text).toContain('Test files: 0 passed, 2 failed');
    expect(text).toContain('  Error: b/policy.yaml: spec.rules: expected a list');
    expect(text).toContain('Aggregated Failed Test Cases : \n┌');
    expect(text).toContain('│  1 │ p      │ r    │ Pod/y    │ Fail');
  });

  it('adds the MESSAGE column with --detailed-results and hides passing rows with --fail-only', () => {
    const text = renderTestTable(outcomes, summary, { detailed: true, failOnly: true });
    expect(text).toContain('MESSAGE');
    expect(text).not.toContain('Pod/x');
    expect(text).toContain('Test Summary: 1 out of 2 tests failed');
  });
});

describe('json output', () => {
  it('lists each test with its checks and the verdict’s totals', () => {
    const report = JSON.parse(renderTestJson(outcomes, summary, 'strict'));
    expect(report.verdict).toBe('strict');
    expect(report.summary).toEqual({ tests: { passed: 0, failed: 2 }, checks: { passed: 1, failed: 1 } });
    expect(report.tests[0].checks[1]).toEqual({
      id: 2,
      policy: 'p',
      rule: 'r',
      resource: 'Pod/y',
      expected: 'pass',
      got: 'fail',
      passed: false,
      reason: 'Want pass, got fail',
      message: 'bad <thing> & "more"',
    });
    expect(report.tests[1].errors).toHaveLength(1);
  });
});

describe('junit output', () => {
  it('writes a suite per test, a case per check, escaped, and errors as <error>', () => {
    const xml = renderTestJunit(outcomes, summary);
    expect(xml).toContain('<testsuites name="edict" tests="3" failures="1" errors="1">');
    expect(xml).toContain('<testcase name="p/r/Pod/x" classname="a"/>');
    expect(xml).toContain(
      '<failure message="Want pass, got fail">expected pass, got fail: bad &lt;thing&gt; &amp; &quot;more&quot;</failure>',
    );
    expect(xml).toContain('<error message="b/policy.yaml: spec.rules: expected a list"/>');
  });
});
