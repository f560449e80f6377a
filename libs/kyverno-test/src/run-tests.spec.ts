import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeEngine, rule } from './testing/fake-engine';
import { clusterPolicy, pod, testFile, yaml } from './testing/fixtures';
import { writeTree } from './testing/temp-tree';
import { discoverTestFiles } from './discovery';
import { outcome, runTests } from './run-tests';

const good = () => ({
  'kyverno-test.yaml': yaml(testFile([{ policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'pass' }])),
  'policy.yaml': yaml(clusterPolicy('p', ['r'])),
  'resources.yaml': yaml(pod('a')),
});

describe('runTests', () => {
  it('runs each test on its own: a broken test is reported and the others still run', async () => {
    const dir = writeTree({
      ...Object.fromEntries(Object.entries(good()).map(([k, v]) => [`ok/${k}`, v])),
      'missing-policy/kyverno-test.yaml': yaml(testFile([], { policies: ['nope.yaml'] })),
      'bad-yaml/kyverno-test.yaml': 'results: [\n',
      'bad-policy/kyverno-test.yaml': yaml(testFile([])),
      'bad-policy/policy.yaml':
        'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: x\nspec:\n  rules: 3\n',
      'bad-policy/resources.yaml': yaml(pod('a')),
    });
    const engine = new FakeEngine(() => [rule('r', 'pass')]);
    const { runs } = await runTests([dir], { engineFactory: engine.factory(), cwd: dir });
    const byFile = Object.fromEntries(runs.map((run) => [run.file, run]));
    expect(outcome(byFile['ok/kyverno-test.yaml'], 'strict').passed).toBe(true);
    expect(byFile['missing-policy/kyverno-test.yaml'].errors[0]).toMatch(
      /kyverno-test\.yaml: policies\[0\]: nope\.yaml: file not found/,
    );
    expect(byFile['bad-yaml/kyverno-test.yaml'].errors[0]).toMatch(/bad-yaml\/kyverno-test\.yaml.*line/);
    expect(byFile['bad-policy/kyverno-test.yaml'].errors[0]).toMatch(/policy\.yaml.*spec\.rules/);
    expect(outcome(byFile['bad-policy/kyverno-test.yaml'], 'compatible').passed).toBe(false);
  });

  it('fails a test whose evaluation throws, naming policy and resource', async () => {
    const dir = writeTree(good());
    const engine = new FakeEngine(() => {
      throw new Error('boom');
    });
    const { runs } = await runTests([dir], { engineFactory: engine.factory() });
    expect(runs[0].errors).toEqual(['validate policy p on Pod/a: boom']);
    expect(outcome(runs[0], 'compatible').passed).toBe(false);
  });

  it('evaluates extra passes for operations named in results', async () => {
    const dir = writeTree({
      ...good(),
      'kyverno-test.yaml': yaml(
        testFile([
          { policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'fail', operation: 'DELETE' },
          { policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'pass' },
        ]),
      ),
    });
    const engine = new FakeEngine((_, request) => [rule('r', request.operation === 'DELETE' ? 'fail' : 'pass')]);
    const { runs } = await runTests([dir], { engineFactory: engine.factory() });
    expect(engine.calls.map((call) => call.request.operation)).toEqual(['CREATE', 'DELETE']);
    expect(runs[0].strict.map((check) => check.passed)).toEqual([true, true]);
  });

  it('hands rule values, namespace labels, user info and exceptions to the engine', async () => {
    const dir = writeTree({
      ...good(),
      'kyverno-test.yaml': yaml(
        testFile([], { variables: 'values.yaml', userinfo: 'user.yaml', exceptions: ['exception.yaml'] }),
      ),
      'values.yaml':
        'policies:\n- name: p\n  rules:\n  - name: r\n    values:\n      limit: 3\nnamespaceSelector:\n- name: default\n  labels:\n    env: dev\n',
      'user.yaml':
        'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nclusterRoles: [admin]\nuserInfo:\n  username: me\n',
      'exception.yaml': yaml({
        apiVersion: 'kyverno.io/v2',
        kind: 'PolicyException',
        metadata: { name: 'e', namespace: 'default' },
        spec: {
          exceptions: [{ policyName: 'p', ruleNames: ['r'] }],
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
        },
      }),
    });
    const engine = new FakeEngine(() => []);
    await runTests([dir], { engineFactory: engine.factory() });
    const [call] = engine.calls;
    expect(call.options?.ruleValues?.('p', 'autogen-r')).toEqual({ limit: 3 });
    expect(call.request.namespaceLabels).toEqual({ env: 'dev' });
    expect(call.request.user).toEqual({ roles: [], clusterRoles: ['admin'], userInfo: { username: 'me' } });
    expect(engine.dependencies?.exceptions?.().map((e) => e.metadata.name)).toEqual(['e']);
  });
});

describe('discoverTestFiles', () => {
  it('finds kyverno-test.yaml and .yml below paths, hidden folders included, once each', () => {
    const dir = writeTree({
      'a/kyverno-test.yaml': '',
      'a/.kyverno-test/kyverno-test.yaml': '',
      'b/c/kyverno-test.yml': '',
      'b/other.yaml': '',
    });
    const { files, missing } = discoverTestFiles([dir, join(dir, 'a'), join(dir, 'nope')]);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
      'a/.kyverno-test/kyverno-test.yaml',
      'a/kyverno-test.yaml',
      'b/c/kyverno-test.yml',
    ]);
    expect(missing).toEqual([join(dir, 'nope')]);
  });
});
