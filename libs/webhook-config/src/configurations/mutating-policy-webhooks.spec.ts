import { describe, expect, it } from 'vitest';
import { compileMutatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { mutatingPolicyWebhooks } from './mutating-policy-webhooks';

const excluded = {
  matchExpressions: [
    { key: 'kubernetes.io/metadata.name', operator: 'NotIn' as const, values: ['kube-system'] },
    { key: 'kubernetes.io/metadata.name', operator: 'NotIn' as const, values: ['kyverno'] },
  ],
};
const options = {
  client: (path: string) => ({ service: { name: 'kyverno-svc', namespace: 'kyverno', path, port: 443 } }),
  defaultTimeoutSeconds: 10,
  namespaceSelector: excluded,
  objectSelector: {},
  validatingWebhookName: 'validate.kyverno.svc',
};

const rules = (resources: string[], operations = ['CREATE', 'UPDATE']) => ({
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations, resources }],
});

function mpol(name: string, spec: Record<string, unknown>, namespace?: string) {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1beta1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}), generation: 1 },
    spec: {
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
        },
      ],
      ...spec,
    },
  } as unknown as KubeObject);
}

describe('MutatingPolicy webhooks', () => {
  it("publishes Kyverno's mpol webhook: name, path, rules, selectors, no reinvocation by default", () => {
    const hooks = mutatingPolicyWebhooks(
      [mpol('add-label', { failurePolicy: 'Ignore', matchConstraints: rules(['namespaces']) })],
      options,
    );
    expect(hooks).toEqual([
      {
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'kyverno-svc', namespace: 'kyverno', path: '/mpol/add-label', port: 443 } },
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        name: 'mpol.validate.kyverno.svc-ignore',
        namespaceSelector: excluded,
        objectSelector: {},
        reinvocationPolicy: 'Never',
        rules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['namespaces'],
            scope: '*',
          },
        ],
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: 10,
      },
    ]);
  });

  it('reinvokes the webhook of a policy asking IfNeeded, and keeps matchPolicy Exact on its fine-grained one', () => {
    const hooks = mutatingPolicyWebhooks(
      [
        mpol('again', {
          reinvocationPolicy: 'IfNeeded',
          matchConstraints: { ...rules(['pods'], ['CREATE']), matchPolicy: 'Exact' },
        }),
        mpol('once', { matchConstraints: rules(['configmaps']) }),
      ],
      options,
    );
    expect(
      hooks.map((hook) => [hook.name, hook.clientConfig.service?.path, hook.matchPolicy, hook.reinvocationPolicy]),
    ).toEqual([
      ['mpol.validate.kyverno.svc-fail', '/mpol/once', 'Equivalent', 'Never'],
      ['mpol.validate.kyverno.svc-fail-finegrained-again', '/mpol/again', 'Exact', 'IfNeeded'],
    ]);
  });

  it('adds the autogen pod controllers to the rules and carries kube-compilable match conditions', () => {
    const [hook] = mutatingPolicyWebhooks(
      [
        mpol('pods', {
          matchConstraints: rules(['pods'], ['CREATE']),
          matchConditions: [
            { name: 'labelled', expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" },
          ],
        }),
      ],
      options,
    );
    expect(hook?.rules.flatMap((rule) => rule.resources)).toEqual(
      expect.arrayContaining(['pods', 'deployments', 'cronjobs']),
    );
    expect(hook?.matchConditions?.map((condition) => condition.name)).toEqual(
      expect.arrayContaining(['autogen-labelled']),
    );
  });

  it("leaves to Edict conditions kube-apiserver's webhook environment cannot run (variables, request.object)", () => {
    const secrets = rules(['secrets']);
    const [withRequestObject, withVariables, plain] = [
      mpol('request-object', {
        matchConstraints: secrets,
        matchConditions: [{ name: 'labelled', expression: 'has(request.object.metadata.labels)' }],
      }),
      mpol('variables', {
        matchConstraints: secrets,
        variables: [{ name: 'env', expression: "'prod'" }],
        matchConditions: [{ name: 'prod', expression: 'variables.env == "prod"' }],
      }),
      mpol('plain', {
        matchConstraints: secrets,
        matchConditions: [
          { name: 'create', expression: "request.operation == 'CREATE' && request.name != 'x.request.object'" },
        ],
      }),
    ].map((policy) => mutatingPolicyWebhooks([policy], options)[0]);
    expect(withRequestObject?.matchConditions).toBeUndefined();
    expect(withVariables?.matchConditions).toBeUndefined();
    expect(plain?.matchConditions).toEqual([
      { name: 'create', expression: "request.operation == 'CREATE' && request.name != 'x.request.object'" },
    ]);
  });

  it('confines a NamespacedMutatingPolicy to its namespace and leaves out admission-disabled policies', () => {
    const hooks = mutatingPolicyWebhooks(
      [
        mpol('team', { matchConstraints: rules(['configmaps']) }, 'team-a'),
        mpol('off', {
          matchConstraints: rules(['configmaps']),
          evaluation: { admission: { enabled: false }, mutateExisting: { enabled: true } },
        }),
      ],
      options,
    );
    expect(hooks).toHaveLength(1);
    expect(hooks[0]?.name).toBe('mpol.validate.kyverno.svc-fail-finegrained-team-a.team');
    expect(hooks[0]?.namespaceSelector.matchExpressions).toContainEqual({
      key: 'kubernetes.io/metadata.name',
      operator: 'In',
      values: ['team-a'],
    });
  });
});
