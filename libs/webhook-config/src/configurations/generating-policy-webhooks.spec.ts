import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { generatingPolicyWebhooks, type GeneratingPolicyWebhookSource } from './generating-policy-webhooks';
import type { ValidatingPolicyWebhookOptions } from './validating-policy-webhooks';

const options: Omit<ValidatingPolicyWebhookOptions, 'prefix' | 'path'> = {
  validatingWebhookName: 'validate.kyverno.svc',
  client: (path) => ({ service: { name: 'kyverno-svc', namespace: 'kyverno', path, port: 443 } }),
  defaultTimeoutSeconds: 10,
  namespaceSelector: {},
  objectSelector: {},
};

function gpol(name: string, spec: JsonObject, namespace?: string, admission = true): GeneratingPolicyWebhookSource {
  return {
    kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
    name,
    ...(namespace ? { namespace } : {}),
    admission,
    policy: {
      apiVersion: 'policies.kyverno.io/v1',
      kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
      metadata: { name, ...(namespace ? { namespace } : {}) },
      spec,
    },
  };
}

const onCreate = (resources: string[], apiGroups = ['']) => ({
  matchConstraints: { resourceRules: [{ apiGroups, apiVersions: ['v1'], operations: ['CREATE'], resources }] },
});

describe('generatingPolicyWebhooks', () => {
  it('shares one Ignore webhook at /gpol/<names> listening to all four operations', () => {
    const hooks = generatingPolicyWebhooks(
      [gpol('gen-b', onCreate(['deployments'], ['apps'])), gpol('gen-a', onCreate(['configmaps']))],
      options,
    );
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    expect(hook.name).toBe('gpol.validate.kyverno.svc-ignore');
    expect(hook.failurePolicy).toBe('Ignore');
    expect(hook.clientConfig.service?.path).toBe('/gpol/gen-a/gen-b');
    expect(hook.rules.map((rule) => [rule.resources, rule.operations])).toEqual([
      [['configmaps'], ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']],
      [['deployments'], ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']],
    ]);
  });

  it('gives a namespaced policy its own webhook in its namespace, and none to a policy off at admission', () => {
    const hooks = generatingPolicyWebhooks(
      [gpol('tenant-gen', onCreate(['secrets']), 'tenant'), gpol('off', onCreate(['pods']), undefined, false)],
      options,
    );
    expect(hooks.map((hook) => hook.name)).toEqual(['gpol.validate.kyverno.svc-ignore-finegrained-tenant.tenant-gen']);
    expect(hooks[0]!.clientConfig.service?.path).toBe('/gpol/tenant-gen');
    expect(hooks[0]!.namespaceSelector.matchExpressions).toContainEqual({
      key: 'kubernetes.io/metadata.name',
      operator: 'In',
      values: ['tenant'],
    });
  });
});
