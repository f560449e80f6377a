import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { defaultEngineFactory } from './default-engine';
import { runTests, type TestRun } from './run-tests';
import { writeTree } from './testing/temp-tree';
import { yaml } from './testing/fixtures';

const namespace = (name: string): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

/** Clones the Secrets of `default` (a Context file's) into each new Namespace, except `testing`. */
const cloningPolicy: JsonObject = {
  apiVersion: 'policies.kyverno.io/v1beta1',
  kind: 'GeneratingPolicy',
  metadata: { name: 'clone-secrets' },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
    },
    matchConditions: [{ name: 'not-testing', expression: "object.metadata.name != 'testing'" }],
    variables: [{ name: 'sources', expression: 'resource.List("v1", "secrets", "default")' }],
    generate: [{ expression: 'generator.Apply(object.metadata.name, [variables.sources])' }],
  },
};

const secret = (namespace: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'token', namespace, ...extra },
  data: { key: 'dmFsdWU=' },
});

const context: JsonObject = {
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Context',
  metadata: { name: 'context' },
  spec: { resources: [secret('default', { uid: 'abc', annotations: { note: 'source' } })] },
};

const test = (results: JsonValue[], withContext = true): JsonObject => ({
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Test',
  metadata: { name: 'gpol' },
  policies: ['policy.yaml'],
  resources: ['resources.yaml'],
  ...(withContext ? { context: 'context.yaml' } : {}),
  results,
});

async function run(files: Record<string, string>): Promise<TestRun> {
  const dir = writeTree(files);
  const { runs } = await runTests([dir], { engineFactory: defaultEngineFactory, cwd: dir });
  return runs[0]!;
}

describe('GeneratingPolicies in Kyverno CLI tests', () => {
  const entry = (resource: string, result: string, generatedResource?: string): JsonObject => ({
    isGeneratingPolicy: true,
    policy: 'clone-secrets',
    kind: 'Namespace',
    resources: [resource],
    result,
    ...(generatedResource ? { generatedResource } : {}),
  });

  it('generates from the Context file and compares the objects with the expected file', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([entry('prod', 'pass', 'generated.yaml'), entry('testing', 'pass', 'empty-ok.yaml')]),
      ),
      'policy.yaml': yaml(cloningPolicy),
      'context.yaml': yaml(context),
      'resources.yaml': [yaml(namespace('prod')), yaml(namespace('testing'))].join('---\n'),
      // The copy is tidied as Kyverno's CLI records it: no uid, no annotations, the new namespace.
      'generated.yaml': yaml(secret('prod')),
      'empty-ok.yaml': yaml(secret('testing')),
    });
    expect(result.errors).toEqual([]);
    expect(result.policyKinds).toEqual(['GeneratingPolicy']);
    expect(result.strict.map((check) => [check.resource, check.got, check.passed, check.message])).toEqual([
      ['Namespace/prod', 'pass', true, 'policy evaluated successfully'],
      // A false match condition passes without generating: the expected object is missing.
      ['Namespace/testing', 'pass', false, 'no rule generated Secret testing/token'],
    ]);
  });

  it('fails a check whose generated object differs, and reports a policy that does not compile', async () => {
    const differs = await run({
      'kyverno-test.yaml': yaml(test([entry('prod', 'pass', 'generated.yaml')])),
      'policy.yaml': yaml(cloningPolicy),
      'context.yaml': yaml(context),
      'resources.yaml': yaml(namespace('prod')),
      'generated.yaml': yaml({ ...secret('prod'), data: { key: 'b3RoZXI=' } }),
    });
    expect(differs.strict.map((check) => [check.passed, check.message])).toEqual([
      [false, 'generated Secret token differs from generated.yaml'],
    ]);
    const broken = await run({
      'kyverno-test.yaml': yaml(test([entry('prod', 'pass')])),
      'policy.yaml': yaml({ ...cloningPolicy, spec: { ...(cloningPolicy.spec as JsonObject), generate: [] } }),
      'context.yaml': yaml(context),
      'resources.yaml': yaml(namespace('prod')),
    });
    expect(broken.errors.join('\n')).toContain('spec.generate: Invalid value: 0');
  });

  it('generates a cluster-scoped kind without a namespace', async () => {
    const policy: JsonObject = {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'GeneratingPolicy',
      metadata: { name: 'role-per-namespace' },
      spec: {
        matchConstraints: (cloningPolicy.spec as JsonObject).matchConstraints as JsonValue,
        generate: [
          {
            expression:
              'generator.Apply(object.metadata.name, [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": object.metadata.name + "-reader"}}])',
          },
        ],
      },
    };
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'prod-reader' } };
    const result = await run({
      'kyverno-test.yaml': yaml(
        test(
          [
            {
              isGeneratingPolicy: true,
              policy: 'role-per-namespace',
              kind: 'Namespace',
              resources: ['prod'],
              result: 'pass',
              generatedResource: 'role.yaml',
            },
          ],
          false,
        ),
      ),
      'policy.yaml': yaml(policy),
      'resources.yaml': yaml(namespace('prod')),
      'role.yaml': yaml(role),
    });
    expect(result.errors).toEqual([]);
    expect(result.strict.map((check) => check.passed)).toEqual([true]);
  });
});
