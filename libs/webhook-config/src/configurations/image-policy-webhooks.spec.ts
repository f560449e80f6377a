import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  IMAGE_POLICY_PREFIX,
  IMAGE_POLICY_VALIDATE_PATH,
  imagePolicyMutatingWebhooks,
  validatingPolicyWebhooks,
  type ValidatingPolicyWebhookSource,
} from './validating-policy-webhooks';

const excluded = {
  matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn' as const, values: ['kyverno'] }],
};
const common = {
  client: (path: string) => ({ service: { name: 'kyverno-svc', namespace: 'kyverno', path, port: 443 } }),
  defaultTimeoutSeconds: 10,
  namespaceSelector: excluded,
  objectSelector: {},
};
const validating = (policies: ValidatingPolicyWebhookSource[]) =>
  validatingPolicyWebhooks(policies, {
    ...common,
    validatingWebhookName: 'validate.kyverno.svc',
    prefix: IMAGE_POLICY_PREFIX,
    path: IMAGE_POLICY_VALIDATE_PATH,
  });
const mutating = (policies: ValidatingPolicyWebhookSource[]) =>
  imagePolicyMutatingWebhooks(policies, { ...common, mutatingWebhookName: 'mutate.kyverno.svc' });

const pods = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };

function ivpol(name: string, spec: JsonObject, extra: Partial<ValidatingPolicyWebhookSource> = {}) {
  const kind = extra.namespace ? 'NamespacedImageValidatingPolicy' : 'ImageValidatingPolicy';
  return {
    kind,
    name,
    failurePolicy: 'Fail',
    admission: true,
    policy: { apiVersion: 'policies.kyverno.io/v1', kind, metadata: { name }, spec },
    autogenStatus: {},
    ...extra,
  } as ValidatingPolicyWebhookSource;
}

describe('ImageValidatingPolicy webhooks', () => {
  it('publishes a validating and a digest-mutating webhook under /ivpol/validate and /ivpol/mutate', () => {
    const policy = ivpol('check-signed-images', { matchConstraints: pods });
    const [validate] = validating([policy]);
    const [mutate] = mutating([policy]);
    expect(validate).toMatchObject({
      name: 'ivpol.validate.kyverno.svc-fail',
      clientConfig: { service: { path: '/ivpol/validate/check-signed-images' } },
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: excluded,
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' }],
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 10,
    });
    expect(validate).not.toHaveProperty('reinvocationPolicy');
    expect(mutate).toEqual({
      ...validate,
      name: 'ivpol.mutate.kyverno.svc-fail',
      clientConfig: {
        service: { name: 'kyverno-svc', namespace: 'kyverno', port: 443, path: '/ivpol/mutate/check-signed-images' },
      },
      reinvocationPolicy: 'Never',
    });
  });

  it('keeps matchPolicy Exact on the validating webhook only, both fine-grained', () => {
    const policy = ivpol('exact', { matchConstraints: { ...pods, matchPolicy: 'Exact' } }, { failurePolicy: 'Ignore' });
    const [validate] = validating([policy]);
    const [mutate] = mutating([policy]);
    expect(validate).toMatchObject({
      name: 'ivpol.validate.kyverno.svc-ignore-finegrained-exact',
      matchPolicy: 'Exact',
    });
    expect(mutate).toMatchObject({
      name: 'ivpol.mutate.kyverno.svc-ignore-finegrained-exact',
      matchPolicy: 'Equivalent',
    });
  });

  it('limits a NamespacedImageValidatingPolicy to its namespace, and leaves out policies not run at admission', () => {
    const hooks = validating([
      ivpol('mine', { matchConstraints: pods }, { namespace: 'team-a' }),
      ivpol('background-only', { matchConstraints: pods }, { admission: false }),
    ]);
    expect(hooks.map((hook) => hook.name)).toEqual(['ivpol.validate.kyverno.svc-fail-finegrained-team-a.mine']);
    expect(hooks[0]!.namespaceSelector.matchExpressions).toContainEqual({
      key: 'kubernetes.io/metadata.name',
      operator: 'In',
      values: ['team-a'],
    });
  });
});
