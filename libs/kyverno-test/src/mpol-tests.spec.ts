import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { defaultEngineFactory } from './default-engine';
import { runTests, type TestRun } from './run-tests';
import { writeTree } from './testing/temp-tree';
import { yaml } from './testing/fixtures';

const rules = (resources: string[], group = '') => ({
  resourceRules: [{ apiGroups: [group], apiVersions: ['v1'], operations: ['CREATE'], resources }],
});

const addLabel = 'Object{metadata: Object.metadata{labels: {"mutated": "true"}}}';

const mutatingPolicy = (spec: JsonObject): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'MutatingPolicy',
  metadata: { name: 'm' },
  spec: {
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: addLabel } }],
    ...spec,
  },
});

const configMap = (name: string, labels?: Record<string, string>): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'apps', ...(labels ? { labels } : {}) },
  data: { a: '1' },
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
  return runs[0]!;
}

const summary = (run: TestRun) => run.strict.map((check) => [check.resource, check.got, check.reason]);

describe('MutatingPolicies in Kyverno CLI tests', () => {
  it('compares the patched resource with patchedResources, and a skip with no patch', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([
          {
            isMutatingPolicy: true,
            policy: 'm',
            kind: 'ConfigMap',
            resources: ['apps/a'],
            patchedResources: 'patched.yaml',
            result: 'pass',
          },
          {
            isMutatingPolicy: true,
            policy: 'm',
            kind: 'ConfigMap',
            resources: ['apps/b'],
            patchedResources: 'wrong.yaml',
            result: 'pass',
          },
          { isMutatingPolicy: true, policy: 'm', kind: 'ConfigMap', resources: ['apps/skipped'], result: 'skip' },
        ]),
      ),
      'policy.yaml': yaml(
        mutatingPolicy({
          matchConstraints: rules(['configmaps']),
          matchConditions: [{ name: 'not-skipped', expression: 'object.metadata.name != "skipped"' }],
        }),
      ),
      'resources.yaml': [configMap('a'), configMap('b'), configMap('skipped')].map((o) => yaml(o)).join('---\n'),
      'patched.yaml': yaml(configMap('a', { mutated: 'true' })),
      'wrong.yaml': yaml(configMap('b', { mutated: 'false' })),
    });
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([
      ['apps/ConfigMap/a', 'pass', 'Ok'],
      ['apps/ConfigMap/b', 'pass', 'Resource diff'],
      ['apps/ConfigMap/skipped', 'skip', 'Ok'],
    ]);
  });

  it('patches the targetResources a mutate-existing trigger selects and checks them by name', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test(
          [
            {
              isMutatingPolicy: true,
              policy: 'm',
              kind: 'ConfigMap',
              resources: ['apps/target'],
              patchedResources: 'patched.yaml',
              result: 'pass',
            },
          ],
          { targetResources: ['targets.yaml'] },
        ),
      ),
      'policy.yaml': yaml(
        mutatingPolicy({
          evaluation: { mutateExisting: { enabled: true } },
          matchConstraints: rules(['secrets']),
          targetMatchConstraints: {
            expression: 'resource.Get("v1", "configmaps", object.metadata.namespace, "target")',
          },
        }),
      ),
      'resources.yaml': yaml({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' } }),
      'targets.yaml': [configMap('target'), configMap('other')].map((o) => yaml(o)).join('---\n'),
      'patched.yaml': yaml(configMap('target', { mutated: 'true' })),
    });
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([['apps/ConfigMap/target', 'pass', 'Ok']]);
  });
});
