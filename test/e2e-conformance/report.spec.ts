import { describe, expect, it } from 'vitest';
import {
  explain,
  passRate,
  renderJunit,
  renderMarkdown,
  renderTable,
  scoreOf,
  splitRecords,
  staleKnownFailures,
  type E2eTestRecord,
} from './report';

const records: E2eTestRecord[] = [
  { path: 'validate/enforce/a', name: 'a', outcome: 'pass', durationMs: 1200 },
  {
    path: 'validate/enforce/b',
    name: 'b',
    outcome: 'fail',
    durationMs: 3000,
    step: 'step-02',
    operation: 'assert pod.yaml',
    reason: 'status.phase: expected Running, got Pending | <x>',
  },
  { path: 'lease/admission', name: 'lease', outcome: 'apart', durationMs: 0, reason: 'needs running Pods' },
  { path: 'generate/x', name: 'x', outcome: 'error', durationMs: 10, reason: 'bad file' },
];

describe('e2e conformance report', () => {
  it('scores each folder, the admission-only folders together and the whole run', () => {
    const scores = scoreOf(records);
    expect(scores.folders.map((f) => [f.folder, f.tests, f.passed, f.failed, f.apart])).toEqual([
      ['generate', 1, 0, 1, 0],
      ['lease', 1, 0, 0, 1],
      ['validate', 2, 1, 1, 0],
    ]);
    expect(scores.admission).toMatchObject({ tests: 2, passed: 1, failed: 1 });
    expect(scores.total).toMatchObject({ tests: 4, passed: 1, failed: 2, apart: 1 });
    // Tests counted apart are not run, so they are out of the rate rather than counted as passes.
    expect(passRate(scores.total)).toBeCloseTo(1 / 3);
  });

  it('prints a table with a row per folder and the two totals', () => {
    const table = renderTable(scoreOf(records)).split('\n');
    expect(table[0]).toMatch(/^folder\s+tests\s+passed\s+failed\s+apart\s+pass rate$/);
    expect(table.find((line) => line.startsWith('validate'))).toMatch(/validate\s+2\s+1\s+1\s+0\s+50\.0%$/);
    expect(table.at(-1)).toMatch(/^all\s+4\s+1\s+2\s+1\s+33\.3%$/);
  });

  it('lists every test in the markdown, with step and reason for failures, cells escaped', () => {
    const markdown = renderMarkdown(records, scoreOf(records), 90_000, { generate: 'needs the background controller' });
    expect(markdown).toContain('Run time: 1.5 min');
    expect(markdown).toContain(
      '| `validate/enforce/b` | **fail** | step-02: assert pod.yaml | status.phase: expected Running, got Pending \\| <x> |',
    );
    expect(markdown).toContain('| `lease/admission` | **apart** |  | needs running Pods |');
    expect(markdown).toContain('- needs the background controller (1): `generate/x`');
    expect(markdown).toContain('- not yet explained (1): `validate/enforce/b`');
  });

  it('explains a test by the longest known prefix, whole path segments only, and finds stale entries', () => {
    const known = { validate: 'folder reason', 'validate/enforce/b': 'test reason', 'validate/enf': 'never' };
    expect(explain('validate/enforce/b', known)).toBe('test reason');
    expect(explain('validate/enforce/a', known)).toBe('folder reason');
    expect(explain('generate/x', known)).toBeUndefined();
    expect(staleKnownFailures(records, { 'validate/enforce/a': 'x', 'validate/enforce': 'y', mutate: 'z' })).toEqual([
      'validate/enforce/a',
    ]);
  });

  it('writes JUnit with failures, errors and skipped tests, attributes escaped', () => {
    const junit = renderJunit(records, 4210);
    expect(junit).toContain('<testsuites name="e2e-conformance" tests="4" failures="1" errors="1" time="4.210">');
    expect(junit).toContain(
      '<failure message="step-02: assert pod.yaml: status.phase: expected Running, got Pending | &#60;x&#62;"/>',
    );
    expect(junit).toContain('<skipped message="needs running Pods"/>');
    expect(junit).toContain('<error message="bad file"/>');
  });

  it('scores the local twins apart from the suite, in a section of their own', () => {
    const twin: E2eTestRecord = {
      path: 'cosign/keyed-basic',
      name: 'keyed-basic',
      outcome: 'pass',
      durationMs: 900,
      local: true,
    };
    const all = [...records, twin];
    const { suite, local } = splitRecords(all);
    expect(suite).toEqual(records);
    expect(local).toEqual([twin]);
    const markdown = renderMarkdown(all, scoreOf(suite), 60_000, {});
    const [kyverno, twins] = markdown.split('## Local twins');
    expect(kyverno).not.toContain('cosign/keyed-basic');
    expect(kyverno).toContain('| all | 4 | 1 | 2 | 1 | 33.3% |');
    expect(twins).toContain('| cosign | 1 | 1 | 0 | 0 | 100.0% |');
    expect(twins).toContain('| `cosign/keyed-basic` | pass |  |  |');
    expect(renderTable(scoreOf(local), false).split('\n').at(-1)).toMatch(/^all\s+1\s+1\s+0\s+0\s+100\.0%$/);
    expect(renderJunit(all, 1000)).toContain('<testsuite name="e2e-image-verification/cosign" tests="1">');
  });
});
