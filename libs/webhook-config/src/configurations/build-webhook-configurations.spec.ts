import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '@edict/engine';
import { labelRule, policyOf } from '@edict/policy/testing';
import { cachedPolicyOf, staticResolver } from '../testing';
import {
  buildWebhookConfigurations,
  conventionalPlural,
  kindSelectorsOf,
  type WebhookBuildOptions,
} from './build-webhook-configurations';
import { MANAGED_BY_LABEL } from './names';
import type { ValidatingWebhook } from './types';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const OPTIONS: WebhookBuildOptions = {
  endpoint: { service: { name: 'edict-svc', namespace: 'edict', port: 443 } },
  caBundlePem: CA,
  resolve: staticResolver(),
  excludedNamespaces: ['kube-system', 'edict'],
};
const build = (policies: Policy[], options: Partial<WebhookBuildOptions> = {}) =>
  buildWebhookConfigurations(policies.map(cachedPolicyOf), { ...OPTIONS, ...options });
const hooks = (policies: Policy[], options: Partial<WebhookBuildOptions> = {}) => {
  const result = build(policies, options);
  return {
    result,
    validating: result.validating[0]!.webhooks,
    mutating: result.mutating[0]!.webhooks as ValidatingWebhook[],
  };
};
const hook = (list: ValidatingWebhook[], suffix: 'fail' | 'ignore') => list.find((h) => h.name.endsWith(`-${suffix}`));
const noAutogen = { annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } };
const plain = (name: string, rules: Rule[], spec: Partial<Policy['spec']> = {}, namespace?: string): Policy => {
  const policy = policyOf(name, rules, spec, namespace);
  return { ...policy, metadata: { ...policy.metadata, ...noAutogen } };
};
const mutateRule = (name: string, kinds: string[], extra: Partial<Rule> = {}): Rule => ({
  name,
  match: { any: [{ resources: { kinds } }] },
  mutate: { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } },
  ...extra,
});

describe('buildWebhookConfigurations', () => {
  it('publishes empty resource configurations (and the policy/exception ones) for no policies', () => {
    const { result, validating, mutating } = hooks([]);
    expect(result.complete).toBe(true);
    expect(result.validating.map((c) => c.metadata.name)).toEqual([
      'edict-resource-validating-webhook-cfg',
      'edict-policy-validating-webhook-cfg',
      'edict-exception-validating-webhook-cfg',
      'edict-global-context-validating-webhook-cfg',
    ]);
    expect(result.mutating.map((c) => c.metadata.name)).toEqual(['edict-resource-mutating-webhook-cfg']);
    expect(validating).toEqual([]);
    expect(mutating).toEqual([]);
    for (const config of [...result.validating, ...result.mutating]) {
      expect(config.metadata.labels?.[MANAGED_BY_LABEL]).toBe('edict');
    }
  });

  it('builds a fail webhook with only the kinds and all four operations of a validate policy', () => {
    const { validating, mutating } = hooks([plain('require-team', [labelRule('r', ['Pod'])])]);
    expect(mutating).toEqual([]);
    expect(validating).toHaveLength(1);
    const fail = validating[0]!;
    expect(fail).toEqual({
      admissionReviewVersions: ['v1'],
      clientConfig: {
        caBundle: Buffer.from(CA).toString('base64'),
        service: { name: 'edict-svc', namespace: 'edict', path: '/validate/fail', port: 443 },
      },
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      name: 'validate.edict.svc-fail',
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['edict', 'kube-system'] }],
      },
      objectSelector: {},
      rules: [
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['pods', 'pods/ephemeralcontainers'],
          scope: 'Namespaced',
          operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
        },
      ],
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 10,
    });
  });

  it('adds the autogen controller kinds of a Pod policy', () => {
    const { validating } = hooks([policyOf('require-team', [labelRule('r', ['Pod'])])]);
    const resources = validating[0]!.rules.flatMap((r) => r.apiGroups.map((g) => `${g}/${r.resources.join(',')}`));
    expect(resources).toEqual([
      '/pods,pods/ephemeralcontainers,replicationcontrollers',
      'apps/daemonsets,deployments,replicasets,statefulsets',
      'batch/cronjobs,jobs',
    ]);
  });

  it('uses the operations a match names, and removes the ones exclude.any names', () => {
    const rule = labelRule('r', ['ConfigMap'], 'team', {
      match: { any: [{ resources: { kinds: ['ConfigMap'], operations: ['CREATE', 'UPDATE', 'DELETE'] } }] },
      exclude: { any: [{ resources: { operations: ['DELETE'] } }] },
    });
    const { validating } = hooks([plain('p', [rule])]);
    expect(validating[0]!.rules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
        scope: 'Namespaced',
        operations: ['CREATE', 'UPDATE'],
      },
    ]);
  });

  it('ignores exclude entries that filter on more than kinds and operations', () => {
    const rule = labelRule('r', ['ConfigMap'], 'team', {
      exclude: { any: [{ resources: { operations: ['DELETE'], namespaces: ['dev'] } }] },
    });
    expect(hooks([plain('p', [rule])]).validating[0]!.rules[0]!.operations).toEqual([
      'CONNECT',
      'CREATE',
      'DELETE',
      'UPDATE',
    ]);
  });

  it('splits policies by failure policy into -fail and -ignore webhooks at their own paths', () => {
    const { validating } = hooks([
      plain('a', [labelRule('r', ['ConfigMap'])]),
      plain('b', [labelRule('r', ['Secret'])], { failurePolicy: 'Ignore' }),
    ]);
    expect(validating.map((h) => h.name)).toEqual(['validate.edict.svc-ignore', 'validate.edict.svc-fail']);
    expect(hook(validating, 'ignore')).toMatchObject({
      failurePolicy: 'Ignore',
      clientConfig: { service: { path: '/validate/ignore' } },
      rules: [{ resources: ['secrets'] }],
    });
    expect(hook(validating, 'fail')!.rules[0]!.resources).toEqual(['configmaps']);
  });

  it('puts mutate rules in the mutating webhook with CREATE and UPDATE and IfNeeded reinvocation', () => {
    const { validating, mutating } = hooks([plain('m', [mutateRule('r', ['ConfigMap'])])]);
    expect(validating).toEqual([]);
    expect(mutating).toHaveLength(1);
    expect(mutating[0]).toMatchObject({
      name: 'mutate.edict.svc-fail',
      clientConfig: { service: { path: '/mutate/fail' } },
      reinvocationPolicy: 'IfNeeded',
      sideEffects: 'NoneOnDryRun',
      rules: [{ resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
    });
  });

  it('sends mutate-existing rules to the validating webhook', () => {
    const rule = mutateRule('r', ['ConfigMap'], {
      mutate: {
        targets: [{ apiVersion: 'v1', kind: 'Secret', name: 's', namespace: 'default' }],
        patchStrategicMerge: {},
      },
    });
    const { validating, mutating } = hooks([plain('m', [rule])]);
    expect(mutating).toEqual([]);
    expect(validating[0]!.rules[0]).toMatchObject({
      resources: ['configmaps'],
      operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
    });
  });

  it('covers generated kinds with CREATE, UPDATE and DELETE', () => {
    const rule: Rule = {
      name: 'gen',
      match: { any: [{ resources: { kinds: ['Namespace'] } }] },
      generate: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        name: 'deny',
        namespace: '{{request.object.metadata.name}}',
        data: { spec: {} },
      },
    };
    const { validating } = hooks([plain('g', [rule])]);
    expect(validating[0]!.rules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['namespaces'],
        scope: '*',
        operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
      },
      {
        apiGroups: ['networking.k8s.io'],
        apiVersions: ['v1'],
        resources: ['networkpolicies'],
        scope: 'Namespaced',
        operations: ['CREATE', 'DELETE', 'UPDATE'],
      },
    ]);
  });

  it('turns a wildcard kind into a * rule with the policy scope, and it absorbs narrower entries', () => {
    const { validating } = hooks([
      plain('all', [labelRule('r', ['*'])], { background: false }),
      plain('pods', [labelRule('r', ['Pod'])]),
    ]);
    expect(validating[0]!.rules).toEqual([
      {
        apiGroups: ['*'],
        apiVersions: ['*'],
        resources: ['*', 'pods/ephemeralcontainers'],
        scope: '*',
        operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
      },
    ]);
    const namespaced = hooks([plain('all', [labelRule('r', ['*/*'])], { background: false }, 'team-a')]).validating[0]!
      .rules;
    expect(namespaced).toEqual([
      {
        apiGroups: ['*'],
        apiVersions: ['*'],
        resources: ['*/*'],
        scope: 'Namespaced',
        operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
      },
    ]);
  });

  it('maps subresources through the resolver', () => {
    const { validating } = hooks([
      plain('exec', [
        labelRule('r', ['Pod/exec'], 'team', {
          match: { any: [{ resources: { kinds: ['Pod/exec'], operations: ['CONNECT'] } }] },
        }),
      ]),
      plain('scale', [labelRule('r', ['apps/v1/Deployment/scale'])]),
    ]);
    expect(validating[0]!.rules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'], scope: 'Namespaced', operations: ['CONNECT'] },
      {
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        resources: ['deployments/scale'],
        scope: 'Namespaced',
        operations: ['CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
      },
    ]);
  });

  it('raises the timeout to the largest webhookTimeoutSeconds of the webhook, capped at 30', () => {
    const { validating } = hooks([
      plain('a', [labelRule('r', ['ConfigMap'])], { webhookTimeoutSeconds: 15 }),
      plain('b', [labelRule('r', ['Secret'])], { webhookTimeoutSeconds: 5 }),
      plain('c', [labelRule('r', ['Secret'])], { webhookTimeoutSeconds: 25, failurePolicy: 'Ignore' }),
    ]);
    expect(hook(validating, 'fail')!.timeoutSeconds).toBe(15);
    expect(hook(validating, 'ignore')!.timeoutSeconds).toBe(25);
    expect(
      hooks([plain('b', [labelRule('r', ['Secret'])])], { defaultTimeoutSeconds: 40 }).validating[0]!.timeoutSeconds,
    ).toBe(30);
    expect(
      hooks([plain('b', [labelRule('r', ['Secret'])], { webhookTimeoutSeconds: 3 })], { defaultTimeoutSeconds: 2 })
        .validating[0]!.timeoutSeconds,
    ).toBe(3);
  });

  it('publishes a policy under its webhookConfiguration failure policy and timeout', () => {
    const { validating } = hooks([
      plain('a', [labelRule('r', ['ConfigMap'])], {
        webhookConfiguration: { failurePolicy: 'Ignore', timeoutSeconds: 22 },
      }),
    ]);
    expect(validating.map((webhook) => webhook.name)).toEqual([expect.stringMatching(/-ignore$/)]);
    expect(hook(validating, 'ignore')!.timeoutSeconds).toBe(22);
  });

  it('leaves out policies with admission disabled', () => {
    expect(
      hooks([plain('a', [labelRule('r', ['ConfigMap'])], { admission: false, background: true })]).validating,
    ).toEqual([]);
  });

  it('has no namespace selector expression when nothing is excluded, and a URL in local mode', () => {
    const { validating } = hooks([plain('a', [labelRule('r', ['ConfigMap'])])], {
      excludedNamespaces: [],
      endpoint: { url: 'https://127.0.0.1:9443/' },
    });
    expect(validating[0]!.namespaceSelector).toEqual({});
    expect(validating[0]!.clientConfig).toEqual({
      caBundle: Buffer.from(CA).toString('base64'),
      url: 'https://127.0.0.1:9443/validate/fail',
    });
  });

  it('reports kinds the resolver does not know yet as incomplete; a kind nothing serves gets its conventional plural', () => {
    const result = build([plain('a', [labelRule('r', ['Widget', 'ConfigMap'])])], {
      resolve: staticResolver(['Widget']),
    });
    expect(result.complete).toBe(false);
    expect(result.unresolved).toEqual(['a: Widget']);
    expect(result.validating[0]!.webhooks[0]!.rules[0]!.resources).toEqual(['configmaps']);
    // Its CRD may appear at any time: resources created right after are sent to the webhook already.
    const served = build([plain('a', [labelRule('r', ['Gadget', 'example.io/v1/Policy'])])]);
    expect(served.complete).toBe(true);
    expect(served.validating[0]!.webhooks[0]!.rules.map((r) => [r.apiGroups, r.apiVersions, r.resources])).toEqual([
      [['*'], ['*'], ['gadgets']],
      [['example.io'], ['v1'], ['policies']],
    ]);
  });

  it('conventional plurals follow the usual CRD naming', () => {
    expect(['Widget', 'Policy', 'Ingress', 'Box', 'Batch', 'Gateway'].map(conventionalPlural)).toEqual([
      'widgets',
      'policies',
      'ingresses',
      'boxes',
      'batches',
      'gateways',
    ]);
  });

  it('adds the ValidatingPolicy webhooks to the resource validating configuration, excluding namespaces one by one', () => {
    const vpol = {
      kind: 'ValidatingPolicy' as const,
      name: 'check-labels',
      failurePolicy: 'Fail' as const,
      admission: true,
      policy: {
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
            ],
          },
        },
      },
      autogenStatus: {},
    };
    const { validating } = hooks([plain('v', [labelRule('r', ['Pod'])])], { validatingPolicies: [vpol] });
    expect(validating.map((h) => h.name)).toEqual(['validate.edict.svc-fail', 'vpol.validate.edict.svc-fail']);
    expect(validating[1]).toMatchObject({
      clientConfig: { service: { path: '/vpol/check-labels' } },
      namespaceSelector: {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['edict'] },
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
        ],
      },
    });
  });

  it('publishes the policy and exception validation webhooks unless disabled (cleanup policies are the cleanup controller’s)', () => {
    const result = build([]);
    expect(result.validating[1]!.webhooks[0]).toMatchObject({
      name: 'validate-policy.edict.svc',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      clientConfig: { service: { path: '/policyvalidate' } },
      rules: [
        { apiGroups: ['kyverno.io'], resources: ['clusterpolicies', 'policies'], operations: ['CREATE', 'UPDATE'] },
        {
          apiGroups: ['policies.kyverno.io'],
          apiVersions: ['v1', 'v1beta1', 'v1alpha1'],
          resources: [
            'validatingpolicies',
            'namespacedvalidatingpolicies',
            'imagevalidatingpolicies',
            'namespacedimagevalidatingpolicies',
            'mutatingpolicies',
            'namespacedmutatingpolicies',
            'generatingpolicies',
            'namespacedgeneratingpolicies',
            'deletingpolicies',
            'namespaceddeletingpolicies',
          ],
          operations: ['CREATE', 'UPDATE'],
        },
      ],
    });
    expect(result.validating[1]!.webhooks[0]!.rules).toHaveLength(2);
    expect(result.validating[2]!.webhooks[0]).toMatchObject({
      name: 'validate-policyexception.edict.svc',
      rules: [
        { apiGroups: ['kyverno.io'], resources: ['policyexceptions'] },
        { apiGroups: ['policies.kyverno.io'], resources: ['policyexceptions'] },
      ],
    });
    expect(
      build([], { policyValidation: false, exceptionValidation: false, globalContextValidation: false }).validating,
    ).toHaveLength(1);
  });

  it('publishes the GlobalContextEntry webhook as Kyverno’s generic webhook controller (the ConfigMap’s labels, annotations, conditions)', () => {
    const matchConditions = [{ name: 'not-ci', expression: "request.userInfo.username != 'ci'" }];
    const result = build([], {
      labels: { team: 'platform' },
      annotations: { owner: 'platform' },
      matchConditions,
    });
    const config = result.validating.find((c) => c.metadata.name === 'edict-global-context-validating-webhook-cfg')!;
    expect(config.metadata).toEqual({
      name: 'edict-global-context-validating-webhook-cfg',
      labels: { team: 'platform', [MANAGED_BY_LABEL]: 'edict' },
      annotations: { owner: 'platform' },
    });
    expect(config.webhooks).toHaveLength(1);
    expect(config.webhooks[0]).toMatchObject({
      name: 'edict-svc.edict.svc',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { service: { path: '/globalcontextvalidate' } },
      matchConditions,
      rules: [
        {
          apiGroups: ['kyverno.io'],
          apiVersions: ['v2alpha1', 'v2beta1', 'v2'],
          resources: ['globalcontextentries'],
          operations: ['CREATE', 'UPDATE'],
        },
      ],
    });
    expect(build([], { globalContextValidation: false }).validating.map((c) => c.metadata.name)).not.toContain(
      'edict-global-context-validating-webhook-cfg',
    );
  });

  it('writes every name and the managed-by label it is given (Kyverno’s, here)', () => {
    const policies = [plain('v', [labelRule('r', ['Pod'])]), plain('m', [mutateRule('r', ['Pod'])])];
    const result = build(policies, {
      names: {
        resourceValidating: 'kyverno-resource-validating-webhook-cfg',
        resourceMutating: 'kyverno-resource-mutating-webhook-cfg',
        policyValidating: 'kyverno-policy-validating-webhook-cfg',
        exceptionValidating: 'kyverno-exception-validating-webhook-cfg',
        validatingWebhook: 'validate.kyverno.svc',
        mutatingWebhook: 'mutate.kyverno.svc',
        policyValidatingWebhook: 'validate-policy.kyverno.svc',
        exceptionValidatingWebhook: 'kyverno-svc.kyverno.svc',
        globalContextValidating: 'kyverno-global-context-validating-webhook-cfg',
        globalContextValidatingWebhook: 'kyverno-svc.kyverno.svc',
        managedByLabel: 'webhook.kyverno.io/managed-by',
        managedBy: 'kyverno',
      },
    });
    const summary = [...result.validating, ...result.mutating].map((config) => ({
      name: config.metadata.name,
      labels: config.metadata.labels,
      webhooks: config.webhooks.map((h) => h.name),
    }));
    const labels = { 'webhook.kyverno.io/managed-by': 'kyverno' };
    expect(summary).toEqual([
      { name: 'kyverno-resource-validating-webhook-cfg', labels, webhooks: ['validate.kyverno.svc-fail'] },
      { name: 'kyverno-policy-validating-webhook-cfg', labels, webhooks: ['validate-policy.kyverno.svc'] },
      { name: 'kyverno-exception-validating-webhook-cfg', labels, webhooks: ['kyverno-svc.kyverno.svc'] },
      { name: 'kyverno-global-context-validating-webhook-cfg', labels, webhooks: ['kyverno-svc.kyverno.svc'] },
      { name: 'kyverno-resource-mutating-webhook-cfg', labels, webhooks: ['mutate.kyverno.svc-fail'] },
    ]);
  });

  it('lists the kind selectors the resolver must know', () => {
    const policies = [
      plain('a', [labelRule('r', ['Pod', 'apps/v1/Deployment/scale'])]),
      plain('m', [mutateRule('r', ['Secret'])]),
    ];
    expect(kindSelectorsOf(policies.map(cachedPolicyOf))).toEqual(['Pod', 'Secret', 'apps/v1/Deployment/scale']);
  });

  it('is deterministic', () => {
    const policies = [policyOf('a', [labelRule('r', ['Pod', 'Secret'])]), plain('b', [mutateRule('r', ['ConfigMap'])])];
    expect(JSON.stringify(build(policies))).toBe(JSON.stringify(build([...policies].reverse())));
  });

  describe("the ConfigMap's webhook keys (Kyverno's webhooks, webhookAnnotations, webhookLabels, matchConditions)", () => {
    const settings: Partial<WebhookBuildOptions> = {
      webhook: {
        namespaceSelector: { matchLabels: { policed: 'yes' } },
        objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
      },
      matchConditions: [{ name: 'not-nodes', expression: "!('system:nodes' in request.userInfo.groups)" }],
      annotations: { team: 'platform' },
      labels: { owner: 'ops', [MANAGED_BY_LABEL]: 'someone-else' },
    };

    it('puts the selectors and conditions on the resource webhooks, the metadata on every configuration', () => {
      const { result, validating, mutating } = hooks(
        [plain('both', [labelRule('v', ['Pod']), mutateRule('m', ['ConfigMap'])])],
        settings,
      );
      for (const hook of [...validating, ...mutating]) {
        expect(hook.namespaceSelector).toEqual({
          matchLabels: { policed: 'yes' },
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['edict', 'kube-system'] },
          ],
        });
        expect(hook.objectSelector).toEqual({ matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] });
        expect(hook.matchConditions).toEqual(settings.matchConditions);
      }
      for (const config of [...result.validating, ...result.mutating]) {
        expect(config.metadata.annotations).toEqual({ team: 'platform' });
        expect(config.metadata.labels).toEqual({ owner: 'ops', [MANAGED_BY_LABEL]: 'edict' });
      }
      const [policyHook] = result.validating[1]!.webhooks;
      expect(policyHook!.matchConditions).toBeUndefined();
      expect(policyHook!.namespaceSelector).toEqual({});
      const [exceptionHook] = result.validating[2]!.webhooks;
      expect(exceptionHook!.matchConditions).toEqual(settings.matchConditions);
    });

    it("keeps GKE Autopilot's opt-out annotation when nothing is configured", () => {
      const { result } = hooks([]);
      for (const config of [...result.validating, ...result.mutating])
        expect(config.metadata.annotations).toEqual({ 'admissions.enforcer/disabled': 'true' });
    });
  });

  describe("a classic policy's own spec.webhookConfiguration.matchConditions (Kyverno's fine-grained webhook)", () => {
    const conditions = [
      { name: 'exclude-nodes', expression: '!("system:nodes" in request.userInfo.groups)' },
      { name: 'in-namespace', expression: 'namespaceObject.metadata.name == "x"' },
    ];

    it('gives the policy a webhook of its own with its conditions, out of the shared ones', () => {
      const own = plain('own-conditions', [labelRule('r', ['Pod'])], {
        failurePolicy: 'Ignore',
        webhookConfiguration: { matchConditions: conditions },
      });
      const shared = plain('shared', [labelRule('r', ['ConfigMap'])], { failurePolicy: 'Ignore' });
      const { validating } = hooks([own, shared], {
        matchConditions: [{ name: 'from-config', expression: 'true' }],
      });
      expect(validating.map((h) => h.name)).toEqual([
        'validate.edict.svc-ignore',
        'validate.edict.svc-ignore-finegrained-own-conditions',
      ]);
      const fineGrained = validating[1]!;
      // namespaceObject is null for webhooks at the API server: that condition stays Edict's to check.
      expect(fineGrained.matchConditions).toEqual([conditions[0]]);
      expect(fineGrained.clientConfig.service?.path).toBe('/validate/ignore/finegrained/own-conditions');
      expect(fineGrained.rules.flatMap((r) => r.resources)).toEqual(['pods', 'pods/ephemeralcontainers']);
      expect(validating[0]!.rules.flatMap((r) => r.resources)).toEqual(['configmaps']);
      expect(validating[0]!.matchConditions).toEqual([{ name: 'from-config', expression: 'true' }]);
    });

    it("names a namespaced Policy's webhook and path by namespace and name", () => {
      const own = plain(
        'own',
        [labelRule('r', ['Pod'])],
        { webhookConfiguration: { matchConditions: [conditions[0]!] } },
        'team-a',
      );
      const { validating } = hooks([own]);
      expect(validating.map((h) => [h.name, h.clientConfig.service?.path])).toEqual([
        ['validate.edict.svc-fail-finegrained-team-a-own', '/validate/fail/finegrained/team-a/own'],
      ]);
    });
  });
});
