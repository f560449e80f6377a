import { describe, expect, it } from 'vitest';
import type { RuleWithOperations, ValidatingWebhook, ValidatingWebhookConfiguration } from './types';
import { unionConfiguration } from './union';
import { RuleSet } from './rule-set';

const rule = (resources: string[], operations: RuleWithOperations['operations'] = ['CREATE']): RuleWithOperations => ({
  apiGroups: [''],
  apiVersions: ['v1'],
  resources,
  scope: 'Namespaced',
  operations,
});
const hook = (name: string, rules: RuleWithOperations[], timeoutSeconds = 10): ValidatingWebhook => ({
  name,
  rules,
  timeoutSeconds,
  admissionReviewVersions: ['v1'],
  clientConfig: { caBundle: 'NEW' },
  failurePolicy: 'Fail',
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  sideEffects: 'NoneOnDryRun',
});
const config = (webhooks: ValidatingWebhook[]): ValidatingWebhookConfiguration => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'c' },
  webhooks,
});

describe('unionConfiguration', () => {
  it('keeps published rules, webhooks and the larger timeout', () => {
    const observed = config([
      hook('a', [rule(['secrets'])], 20),
      { ...hook('b', [rule(['pods'])]), clientConfig: { caBundle: 'OLD' } },
    ]);
    const desired = config([hook('a', [rule(['configmaps'])])]);
    const union = unionConfiguration(observed, desired);
    expect(union.webhooks.map((h) => h.name)).toEqual(['a', 'b']);
    expect(union.webhooks[0]!.rules).toEqual([rule(['configmaps', 'secrets'])]);
    expect(union.webhooks[0]!.timeoutSeconds).toBe(20);
    expect(union.webhooks[1]!.clientConfig.caBundle).toBe('NEW');
  });

  it('leaves the wanted rules verbatim when the published ones add nothing', () => {
    const multi: RuleWithOperations = { ...rule(['a', 'b']), apiVersions: ['v1', 'v2'] };
    const desired = config([hook('a', [multi])]);
    expect(unionConfiguration(config([hook('a', [])]), desired)).toEqual(desired);
    expect(unionConfiguration(undefined, desired)).toBe(desired);
  });
});

describe('RuleSet', () => {
  it('drops entries covered by wider ones and groups by operations', () => {
    const set = RuleSet.fromRules([
      rule(['pods', 'pods/exec'], ['CREATE', 'UPDATE']),
      { ...rule(['*']), scope: '*', operations: ['CREATE'] },
      rule(['secrets'], ['DELETE']),
    ]);
    // `*` (any scope) covers pods CREATE, but not the pods/exec subresource.
    expect(set.toRules()).toEqual([
      rule(['pods/exec'], ['CREATE', 'UPDATE']),
      rule(['secrets'], ['DELETE']),
      { ...rule(['*', 'pods/ephemeralcontainers'], ['CREATE']), scope: '*' },
      rule(['pods', 'pods/ephemeralcontainers'], ['UPDATE']),
    ]);
  });
});
