import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  readsNamespaceObject,
  validatingPolicyWebhooks,
  type ValidatingPolicyWebhookOptions,
  type ValidatingPolicyWebhookSource,
} from './validating-policy-webhooks';

const excluded = {
  matchExpressions: [
    { key: 'kubernetes.io/metadata.name', operator: 'NotIn' as const, values: ['edict', 'kube-system'] },
  ],
};
const options: ValidatingPolicyWebhookOptions = {
  validatingWebhookName: 'validate.kyverno.svc',
  client: (path) => ({ service: { name: 'kyverno-svc', namespace: 'kyverno', path, port: 443 } }),
  defaultTimeoutSeconds: 10,
  namespaceSelector: excluded,
  objectSelector: {},
};

const rule = (apiGroups: string[], resources: string[], operations = ['CREATE', 'UPDATE']) => ({
  apiGroups,
  apiVersions: ['v1'],
  operations,
  resources,
});

function vpol(
  name: string,
  spec: JsonObject,
  extra: Partial<ValidatingPolicyWebhookSource> = {},
  autogenStatus: JsonObject = {},
): ValidatingPolicyWebhookSource {
  return {
    kind: 'ValidatingPolicy',
    name,
    failurePolicy: 'Fail',
    admission: true,
    policy: { apiVersion: 'policies.kyverno.io/v1', kind: 'ValidatingPolicy', metadata: { name }, spec },
    autogenStatus,
    ...extra,
  };
}

// Kyverno's autogen rewrites `object.metadata` / `object.spec` to the pod template's paths.
const templatePaths = (expression: string) => expression.replaceAll('object.', 'object.spec.template.');
const cronjobPaths = (expression: string) => expression.replaceAll('object.', 'object.spec.jobTemplate.spec.template.');

const podAutogen = (conditions: JsonObject[] = []): JsonObject => ({
  configs: {
    cronjobs: {
      targets: [{ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' }],
      spec: {
        matchConstraints: { resourceRules: [rule(['batch'], ['cronjobs'])] },
        matchConditions: conditions.map((c) => ({ ...c, expression: cronjobPaths(String(c.expression)) })),
      },
    },
    defaults: {
      targets: [
        { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
        { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' },
      ],
      spec: {
        matchConstraints: { resourceRules: [rule(['apps'], ['deployments']), rule(['batch'], ['jobs'])] },
        matchConditions: conditions.map((c) => ({ ...c, expression: templatePaths(String(c.expression)) })),
      },
    },
  },
});

describe('validatingPolicyWebhooks', () => {
  it('puts plain policies in one webhook per failure policy, at /vpol/<their names>', () => {
    const hooks = validatingPolicyWebhooks(
      [
        vpol('b-deploy', { matchConstraints: { resourceRules: [rule(['apps'], ['deployments'])] } }),
        vpol('a-config', { matchConstraints: { resourceRules: [rule([''], ['configmaps'])] } }),
        vpol(
          'c-ignore',
          { matchConstraints: { resourceRules: [rule([''], ['secrets'])] } },
          { failurePolicy: 'Ignore' },
        ),
      ],
      options,
    );
    expect(hooks.map((h) => [h.name, h.clientConfig.service?.path, h.failurePolicy])).toEqual([
      ['vpol.validate.kyverno.svc-fail', '/vpol/a-config/b-deploy', 'Fail'],
      ['vpol.validate.kyverno.svc-ignore', '/vpol/c-ignore', 'Ignore'],
    ]);
    expect(hooks[0]).toMatchObject({
      admissionReviewVersions: ['v1'],
      matchPolicy: 'Equivalent',
      namespaceSelector: excluded,
      objectSelector: {},
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 10,
      rules: [
        { ...rule([''], ['configmaps']), scope: '*' },
        { ...rule(['apps'], ['deployments']), scope: '*' },
      ],
    });
    expect(hooks[0]!.matchConditions).toBeUndefined();
  });

  it('gives a policy with match conditions its own webhook, guarding Pod and autogen conditions by kind (Kyverno order)', () => {
    const conditions = [{ name: 'check-prod-label', expression: "object.metadata.labels.prod == 'true'" }];
    const hooks = validatingPolicyWebhooks(
      [
        vpol(
          'disallow-privilege-escalation',
          { matchConstraints: { resourceRules: [rule([''], ['pods'])] }, matchConditions: conditions },
          {},
          podAutogen(conditions),
        ),
        vpol('check-deployment-labels-2', { matchConstraints: { resourceRules: [rule(['apps'], ['deployments'])] } }),
      ],
      options,
    );
    expect(hooks.map((h) => h.name)).toEqual([
      'vpol.validate.kyverno.svc-fail',
      'vpol.validate.kyverno.svc-fail-finegrained-disallow-privilege-escalation',
    ]);
    const fine = hooks[1]!;
    expect(fine.clientConfig.service?.path).toBe('/vpol/disallow-privilege-escalation');
    expect(fine.matchConditions).toEqual([
      {
        name: 'autogen-check-prod-label',
        expression: "!((object.apiVersion == 'v1' && object.kind =='Pod')) || (object.metadata.labels.prod == 'true')",
      },
      {
        name: 'autogen-cronjobs-check-prod-label',
        expression:
          "!((object.apiVersion == 'batch/v1' && object.kind =='CronJob')) || (object.spec.jobTemplate.spec.template.metadata.labels.prod == 'true')",
      },
      {
        name: 'autogen-defaults-check-prod-label',
        expression:
          "!((object.apiVersion == 'apps/v1' && object.kind =='Deployment') || (object.apiVersion == 'batch/v1' && object.kind =='Job')) || (object.spec.template.metadata.labels.prod == 'true')",
      },
    ]);
    expect(fine.rules.map((r) => `${r.apiGroups.join()}:${r.resources.join()}`)).toEqual([
      ':pods',
      'apps:deployments',
      'batch:cronjobs',
      'batch:jobs',
    ]);
  });

  it('makes matchPolicy Exact and a timeout fine-grained too; timeouts are the larger of flag and policy, at most 30', () => {
    const match = { resourceRules: [rule([''], ['pods'])] };
    const hooks = validatingPolicyWebhooks(
      [
        vpol('exact', { matchConstraints: { ...match, matchPolicy: 'Exact' } }),
        vpol('slow', { matchConstraints: match }, { timeoutSeconds: 25, failurePolicy: 'Ignore' }),
        vpol('quick', { matchConstraints: match }, { timeoutSeconds: 3 }),
      ],
      { ...options, defaultTimeoutSeconds: 40 },
    );
    expect(hooks.map((h) => [h.name, h.matchPolicy, h.timeoutSeconds, h.clientConfig.service?.path])).toEqual([
      ['vpol.validate.kyverno.svc-fail-finegrained-exact', 'Exact', 30, '/vpol/exact'],
      ['vpol.validate.kyverno.svc-fail-finegrained-quick', 'Equivalent', 30, '/vpol/quick'],
      ['vpol.validate.kyverno.svc-ignore-finegrained-slow', 'Equivalent', 30, '/vpol/slow'],
    ]);
    const lower = validatingPolicyWebhooks(
      [vpol('quick', { matchConstraints: match }, { timeoutSeconds: 3 })],
      options,
    );
    expect(lower[0]!.timeoutSeconds).toBe(10);
  });

  it("combines the policy's selectors with the configuration's, and never merges policies whose selectors differ", () => {
    const pods = { resourceRules: [rule([''], ['pods'])] };
    const hooks = validatingPolicyWebhooks(
      [
        vpol('labelled', {
          matchConstraints: {
            ...pods,
            namespaceSelector: { matchLabels: { environment: 'staging' } },
            objectSelector: { matchLabels: { app: 'test' } },
          },
        }),
        vpol('plain', { matchConstraints: pods }),
      ],
      options,
    );
    expect(hooks.map((h) => [h.name, h.clientConfig.service?.path, h.namespaceSelector, h.objectSelector])).toEqual([
      ['vpol.validate.kyverno.svc-fail', '/vpol/plain', excluded, {}],
      [
        'vpol.validate.kyverno.svc-fail-2',
        '/vpol/labelled',
        { ...excluded, matchLabels: { environment: 'staging' } },
        { matchLabels: { app: 'test' } },
      ],
    ]);
    // Alone, the labelled policy's group is the plain-named one (as Kyverno publishes it).
    const alone = validatingPolicyWebhooks(
      [vpol('labelled', { matchConstraints: { ...pods, objectSelector: { matchLabels: { app: 'test' } } } })],
      options,
    );
    expect(alone.map((h) => [h.name, h.objectSelector])).toEqual([
      ['vpol.validate.kyverno.svc-fail', { matchLabels: { app: 'test' } }],
    ]);
  });

  it('keeps a NamespacedValidatingPolicy to its namespace in a webhook of its own', () => {
    const hooks = validatingPolicyWebhooks(
      [
        vpol(
          'team-rule',
          { matchConstraints: { resourceRules: [rule([''], ['configmaps'])] } },
          { kind: 'NamespacedValidatingPolicy', namespace: 'team-a' },
        ),
      ],
      options,
    );
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.name).toBe('vpol.validate.kyverno.svc-fail-finegrained-team-a.team-rule');
    expect(hooks[0]!.namespaceSelector.matchExpressions).toEqual([
      ...excluded.matchExpressions,
      { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] },
    ]);
  });

  it('leaves namespaceObject conditions to Edict, and all of them past 64', () => {
    const match = { resourceRules: [rule(['apps'], ['deployments'])] };
    const [hook] = validatingPolicyWebhooks(
      [
        vpol('ns', {
          matchConstraints: match,
          matchConditions: [
            { name: 'ns-label', expression: "'x' in namespaceObject.metadata.labels" },
            { name: 'leases', expression: "request.resource.resource != 'leases'" },
          ],
        }),
      ],
      options,
    );
    expect(hook!.name).toBe('vpol.validate.kyverno.svc-fail-finegrained-ns');
    expect(hook!.matchConditions).toEqual([{ name: 'leases', expression: "request.resource.resource != 'leases'" }]);
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const [crowded] = validatingPolicyWebhooks(
      [vpol('many', { matchConstraints: match, matchConditions: many })],
      options,
    );
    expect(crowded!.matchConditions).toBeUndefined();
  });

  it("leaves out, whole, conditions kube-apiserver cannot compile (Kyverno's libraries): the policy is then not fine-grained for them", () => {
    const registry = {
      name: 'has-corp-registry',
      expression: "object.spec.containers.exists(c, image(c.image).registry() == 'corp.reg.com')",
    };
    const label = { name: 'prod', expression: "object.metadata.labels.prod == 'true'" };
    const pods = { resourceRules: [rule([''], ['pods'])] };
    const hooks = validatingPolicyWebhooks(
      [
        vpol(
          'image-lib',
          { matchConstraints: pods, matchConditions: [registry, label] },
          {},
          podAutogen([registry, label]),
        ),
        vpol('exact', { matchConstraints: { ...pods, matchPolicy: 'Exact' }, matchConditions: [registry] }),
        vpol('typo', { matchConstraints: pods, matchConditions: [{ name: 'bad', expression: 'object.metadata.(' }] }),
      ],
      options,
    );
    expect(hooks.map((h) => [h.name, h.clientConfig.service?.path, h.matchConditions])).toEqual([
      ['vpol.validate.kyverno.svc-fail', '/vpol/image-lib/typo', undefined],
      ['vpol.validate.kyverno.svc-fail-finegrained-exact', '/vpol/exact', undefined],
    ]);
    // The basic webhook still carries the autogen rules of the policy whose conditions were left out.
    expect(hooks[0]!.rules.map((r) => `${r.apiGroups.join()}:${r.resources.join()}`)).toEqual([
      ':pods',
      'apps:deployments',
      'batch:cronjobs',
      'batch:jobs',
    ]);
  });

  it('publishes nothing for a policy not evaluated at admission or without rules', () => {
    const hooks = validatingPolicyWebhooks(
      [
        vpol('scan-only', { matchConstraints: { resourceRules: [rule([''], ['pods'])] } }, { admission: false }),
        vpol('empty', { matchConstraints: {} }),
      ],
      options,
    );
    expect(hooks).toEqual([]);
  });
});

describe('readsNamespaceObject', () => {
  it.each([
    ["'l' in namespaceObject.metadata.labels", true],
    ['has(namespaceObject.metadata.annotations)', true],
    ['namespaceObject.metadata.?labels["x"].orValue("") == "y"', true],
    ["object.metadata.name != 'namespaceObject'", false],
    ['object.namespaceObject == 1', false],
    ["request.operation == 'CREATE'", false],
  ])('%s -> %s', (expression, reads) => {
    expect(readsNamespaceObject(expression)).toBe(reads);
  });
});
