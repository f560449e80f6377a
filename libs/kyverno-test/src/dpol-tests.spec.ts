import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { defaultEngineFactory } from './default-engine';
import { runTests, type TestRun } from './run-tests';
import { writeTree } from './testing/temp-tree';
import { yaml } from './testing/fixtures';

const pod = (name: string, namespace: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

const deletingPolicy = (name: string, spec: JsonObject, namespace?: string): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1beta1',
  kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: {
    schedule: '*/1 * * * *',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    ...spec,
  },
});

const test = (results: JsonValue[], extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Test',
  metadata: { name: 't' },
  policies: ['policy.yaml'],
  resources: ['resources.yaml'],
  results,
  ...extra,
});

async function run(files: Record<string, string>): Promise<TestRun> {
  const dir = writeTree(files);
  const { runs } = await runTests([dir], { engineFactory: defaultEngineFactory, cwd: dir });
  expect(runs).toHaveLength(1);
  return runs[0];
}

const summary = (run: TestRun) => run.strict.map((check) => [check.resource, check.expected, check.got, check.passed]);

describe('DeletingPolicies in Kyverno CLI tests', () => {
  it('passes what would be deleted and fails what would not', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([
          { isDeletingPolicy: true, policy: 'by-name', kind: 'Pod', resources: ['test/one'], result: 'pass' },
          { isDeletingPolicy: true, policy: 'by-name', kind: 'Pod', resources: ['test/two'], result: 'fail' },
          { isDeletingPolicy: true, policy: 'by-name', kind: 'Pod', resources: ['test/two'], result: 'pass' },
        ]),
      ),
      'policy.yaml': yaml(
        deletingPolicy('by-name', {
          conditions: [{ name: 'name', expression: 'object.metadata.name == "one"' }],
        }),
      ),
      'resources.yaml': [yaml(pod('one', 'test')), yaml(pod('two', 'test'))].join('---\n'),
    });
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([
      ['test/Pod/one', 'pass', 'pass', true],
      ['test/Pod/two', 'fail', 'fail', true],
      ['test/Pod/two', 'pass', 'fail', false],
    ]);
  });

  it('reports a condition that errors, and a policy that does not compile as an error of the test', async () => {
    const erroring = await run({
      'kyverno-test.yaml': yaml(
        test([{ isDeletingPolicy: true, policy: 'boom', kind: 'Pod', resources: ['one'], result: 'error' }]),
      ),
      'policy.yaml': yaml(deletingPolicy('boom', { conditions: [{ name: 'x', expression: 'object.spec.nope == 1' }] })),
      'resources.yaml': yaml(pod('one', 'test')),
    });
    expect(summary(erroring)).toEqual([['Pod/one', 'error', 'error', true]]);

    const invalid = await run({
      'kyverno-test.yaml': yaml(
        test([{ isDeletingPolicy: true, policy: 'bad', kind: 'Pod', resources: ['one'], result: 'pass' }]),
      ),
      'policy.yaml': yaml(deletingPolicy('bad', { schedule: 'never' })),
      'resources.yaml': yaml(pod('one', 'test')),
    });
    expect(invalid.errors.join('\n')).toContain('spec.schedule');
  });
});
