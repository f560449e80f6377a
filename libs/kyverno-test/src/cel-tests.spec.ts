import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { defaultEngineFactory } from './default-engine';
import { outcome, runTests, type TestRun } from './run-tests';
import { writeTree } from './testing/temp-tree';
import { yaml } from './testing/fixtures';

const deployment = (name: string, namespace: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels },
  spec: { replicas: 1 },
});

const validatingPolicy = (name: string, expression: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
      ],
    },
    validations: [{ expression, message: `${name} failed` }],
    ...extra,
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

describe('CEL policies in Kyverno CLI tests', () => {
  it('judges a ValidatingPolicy by all its responses, whatever rule the entry names', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([
          { isValidatingPolicy: true, policy: 'prod-only', kind: 'Deployment', resources: ['bad'], result: 'fail' },
          { policy: 'prod-only', rule: 'anything', kind: 'Deployment', resources: ['good'], result: 'pass' },
        ]),
      ),
      'policy.yaml': yaml(validatingPolicy('prod-only', "object.metadata.labels['env'] == 'prod'")),
      'resources.yaml': [
        yaml(deployment('bad', 'a', { env: 'dev' })),
        yaml(deployment('good', 'a', { env: 'prod' })),
      ].join('---\n'),
    });
    expect(result.errors).toEqual([]);
    expect(result.policyKinds).toEqual(['ValidatingPolicy']);
    expect(summary(result)).toEqual([
      ['Deployment/bad', 'fail', 'fail', true],
      ['Deployment/good', 'pass', 'pass', true],
    ]);
    // Kyverno's CLI ignores the rule only when the entry carries the isValidatingPolicy flag.
    expect(result.compatible.map((check) => check.reason)).toEqual(['Ok', 'Excluded']);
  });

  it('gives namespaceObject from the values file, null without', async () => {
    const files = (namespace: string) => ({
      'kyverno-test.yaml': yaml(
        test([{ isValidatingPolicy: true, policy: 'ns', kind: 'Deployment', resources: ['d'], result: 'pass' }], {
          variables: 'values.yaml',
        }),
      ),
      'values.yaml': yaml({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Values',
        namespaceSelector: [{ name: 'prod', labels: { tier: 'gold' } }],
      }),
      'policy.yaml': yaml(
        validatingPolicy('ns', "namespaceObject != null && namespaceObject.metadata.labels['tier'] == 'gold'"),
      ),
      'resources.yaml': yaml(deployment('d', namespace)),
    });
    expect(summary(await run(files('prod')))).toEqual([['Deployment/d', 'pass', 'pass', true]]);
    expect(summary(await run(files('other')))).toEqual([['Deployment/d', 'pass', 'fail', false]]);
  });

  it('reads objects of the Context file, mocked HTTP answers and global context entries', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([{ isValidatingPolicy: true, policy: 'lookups', kind: 'Deployment', resources: ['d'], result: 'pass' }], {
          context: 'context.yaml',
          apiCallResponses: [
            { url: 'https://config.example/allowed', method: 'GET', response: { body: { allowed: true } } },
          ],
          globalContextEntries: [
            {
              name: 'teams',
              data: { teams: [{ name: 'a' }, { name: 'b' }] },
              projections: [{ name: 'names', path: 'teams[].name' }],
            },
          ],
        }),
      ),
      'context.yaml': yaml({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Context',
        metadata: { name: 'c' },
        spec: {
          resources: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'a' }, data: { max: '3' } },
          ],
        },
      }),
      'policy.yaml': yaml(
        validatingPolicy(
          'lookups',
          "resource.Get('v1', 'configmaps', 'a', 'limits').data.max == '3' && " +
            "http.Get('https://config.example/allowed').body.allowed == true && " +
            "globalContext.Get('teams', 'names') == ['a', 'b']",
        ),
      ),
      'resources.yaml': yaml(deployment('d', 'a')),
    });
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([['Deployment/d', 'pass', 'pass', true]]);
  });

  it('fails an HTTP call the test does not mock, never reaching a network', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([{ isValidatingPolicy: true, policy: 'net', kind: 'Deployment', resources: ['d'], result: 'pass' }]),
      ),
      'policy.yaml': yaml(validatingPolicy('net', "http.Get('https://unmocked.example/').body.ok == true")),
      'resources.yaml': yaml(deployment('d', 'a')),
    });
    expect(result.strict[0].got).toBe('error');
    expect(result.strict[0].message).toMatch(/no apiCallResponses entry for GET https:\/\/unmocked\.example\//);
  });

  it('runs JSON-mode policies on jsonPayloads, checking every payload when the entry names none', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([{ kind: '', policy: 'json', result: 'fail' }], { jsonPayloads: ['payload.json'], resources: [] }),
      ),
      'policy.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1beta1',
        kind: 'ValidatingPolicy',
        metadata: { name: 'json' },
        spec: {
          evaluation: { mode: 'JSON' },
          validations: [{ expression: 'object.value > 10', message: 'too small' }],
        },
      }),
      'payload.json': JSON.stringify({ metadata: { name: 'small' }, value: 5 }),
    });
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([['small', 'fail', 'fail', true]]);
  });

  it('evaluates ValidatingAdmissionPolicies with their bindings and paramResources', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test(
          [
            {
              isValidatingAdmissionPolicy: true,
              policy: 'replicas',
              kind: 'Deployment',
              resources: ['small'],
              result: 'pass',
            },
            {
              isValidatingAdmissionPolicy: true,
              policy: 'replicas',
              kind: 'Deployment',
              resources: ['big'],
              result: 'fail',
            },
          ],
          { paramResources: ['params.yaml'] },
        ),
      ),
      'policy.yaml': [
        yaml({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: 'replicas' },
          spec: {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            matchConstraints: {
              resourceRules: [
                { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
              ],
            },
            validations: [{ expression: 'object.spec.replicas <= int(params.data.max)' }],
          },
        }),
        yaml({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: 'replicas-binding' },
          spec: {
            policyName: 'replicas',
            paramRef: { name: 'limits', namespace: 'default' },
            validationActions: ['Deny'],
          },
        }),
      ].join('---\n'),
      'params.yaml': yaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'limits', namespace: 'default' },
        data: { max: '2' },
      }),
      'resources.yaml': [
        yaml({ ...deployment('small', 'a'), spec: { replicas: 1 } }),
        yaml({ ...deployment('big', 'a'), spec: { replicas: 5 } }),
      ].join('---\n'),
    });
    expect(result.errors).toEqual([]);
    expect(result.policyKinds).toEqual(['ValidatingAdmissionPolicy']);
    expect(summary(result).map((check) => check[3])).toEqual([true, true]);
  });

  it('fails a test whose MutatingPolicy is invalid, naming the field', async () => {
    const result = await run({
      'kyverno-test.yaml': yaml(
        test([{ isMutatingPolicy: true, policy: 'm', kind: 'Deployment', resources: ['d'], result: 'pass' }]),
      ),
      'policy.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'MutatingPolicy',
        metadata: { name: 'm' },
        spec: {},
      }),
      'resources.yaml': yaml(deployment('d', 'a')),
    });
    expect(result.errors).toEqual([
      'MutatingPolicy m: policy m is invalid: spec.matchConstraints: Required value: a matchConstraints with at least one resource rule is required',
    ]);
    expect(outcome(result, 'compatible').passed).toBe(false);
  });
});
