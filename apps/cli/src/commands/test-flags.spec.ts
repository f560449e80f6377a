import { afterEach, describe, expect, it, vi } from 'vitest';
import { rule, clusterPolicy, pod, testFile, yaml, writeTree, type FakeRules } from '@edict/kyverno-test/testing';
import { parse } from 'yaml';
import { runCli as cli } from '../testing/run-cli';

afterEach(() => vi.restoreAllMocks());

/** Policy `p` with rules `r` (a fails) and `s` (b passes); results expect both, `s` wrongly. */
const twoRules = () =>
  writeTree({
    'kyverno-test.yaml': yaml(
      testFile([
        { policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'fail' },
        { policy: 'p', rule: 's', kind: 'Pod', resources: ['b'], result: 'fail' },
      ]),
    ),
    'policy.yaml': yaml(clusterPolicy('p', ['r', 's'])),
    'resources.yaml': yaml(pod('a'), pod('b')),
  });

const script: FakeRules = (_, request) =>
  request.resource?.metadata.name === 'a'
    ? [rule('r', 'fail'), rule('s', 'pass')]
    : [rule('r', 'pass'), rule('s', 'pass')];

describe('edict test --test-case-selector', () => {
  it('checks only the results the selector picks, with wildcards', async () => {
    const dir = twoRules();
    expect((await cli(['test', dir], script)).code).toBe(1);
    const onlyR = await cli(['test', dir, '--test-case-selector', 'policy=p,rule=r,resource=*', '-o', 'json'], script);
    expect(onlyR.code).toBe(0);
    expect(JSON.parse(onlyR.out).summary.checks).toEqual({ passed: 1, failed: 0 });
    const byResource = await cli(['test', dir, '-t', 'resource=b*'], script);
    expect(byResource.code).toBe(1);
  });

  it('skips a test none of whose results is selected, and reports malformed parts', async () => {
    const dir = twoRules();
    const none = await cli(['test', dir, '-t', 'policy=other'], script);
    expect(none.err).toContain('No test yamls available');
    expect(none.code).toBe(0);
    const malformed = await cli(['test', dir, '-t', 'rule=r,color=red,oops'], script);
    expect(malformed.out).toContain('Filter errors:');
    expect(malformed.out).toContain(
      'Invalid test-case-selector (color=red). Parameter can only be policy, rule or resource.',
    );
    expect(malformed.out).toContain(
      'Invalid test-case-selector argument (oops). Parameter must be in the form `<key>=<value>`.',
    );
    expect(malformed.code).toBe(0); // the valid part (rule=r) still selects: the test passes
  });
});

describe('edict test --require-tests and --file-name', () => {
  it('fails when no test file is found only with --require-tests', async () => {
    const dir = writeTree({ 'policy.yaml': yaml(clusterPolicy('p', ['r'])) });
    expect((await cli(['test', dir], script)).code).toBe(0);
    const required = await cli(['test', dir, '--require-tests'], script);
    expect(required.code).toBe(1);
    expect(required.err).toContain('no tests found');
  });

  it('looks for the named test file below the folders', async () => {
    const dir = twoRules();
    const renamed = writeTree({ 'sub/my-test.yaml': yaml(testFile([])) });
    const other = await cli(['test', renamed, '--file-name', 'my-test.yaml', '-o', 'json', '--require-tests'], script);
    expect(JSON.parse(other.out).summary.tests).toEqual({ passed: 0, failed: 1 });
    expect((await cli(['test', dir, '-f', 'nothing.yaml', '--require-tests'], script)).code).toBe(1);
  });
});

describe('edict test git sources', () => {
  it('fails closed with a clear message', async () => {
    const git = await cli(['test', 'https://github.com/kyverno/policies/pod-security', '--git-branch', 'main'], script);
    expect(git.code).toBe(1);
    expect(git.err).toContain('git sources are not supported');
  });
});

describe('edict test --output-format', () => {
  it("takes Kyverno's name of --output, with yaml and markdown besides json, junit and table", async () => {
    const dir = twoRules();
    const json = JSON.parse((await cli(['test', dir, '-o', 'json'], script)).out);
    const yamlRun = await cli(['test', dir, '--output-format', 'yaml'], script);
    expect(parse(yamlRun.out)).toEqual(json);
    expect(yamlRun.code).toBe(1);
    const markdown = await cli(['test', dir, '--output-format', 'markdown', '--detailed-results'], script);
    expect(markdown.out).toContain('| ID | POLICY | RULE | RESOURCE | RESULT | REASON | MESSAGE |\n| --- |');
    expect(markdown.out).toContain('| 2 | p | s | Pod/b | Fail | Want fail, got pass |');
    expect(markdown.out).toContain('**Test Summary:** 1 tests passed and 1 tests failed');
    expect((await cli(['test', dir, '--output-format', 'junit'], script)).out).toContain('<testsuites name="edict"');
    expect((await cli(['test', dir, '--output-format', 'html'], script)).code).not.toBe(0);
  });
});
