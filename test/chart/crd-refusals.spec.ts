/**
 * The webhooks' refusals (crdRefusal, from the DSL) and the API server's (its validator on the
 * generated openAPIV3Schema) are the same field errors, word for word: the two are derived from one
 * source and cannot drift. Undeclared fields are the webhooks' alone until the API server rejects
 * them under strict field validation.
 */
import { describe, expect, it } from 'vitest';
import { validateBySchema } from '@edict/apiserver';
import { CRD_DEFINITIONS, crdRefusal, crdVersionFor, rootSchema } from '@edict/engine';
import { type JsonObject } from '@edict/foundation';

const match = { any: [{ resources: { kinds: ['Pod'] } }] };
const rule = { name: 'r', match, validate: { message: 'm', pattern: { metadata: { name: '?*' } } } };
const cpol = (spec: JsonObject): JsonObject => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec,
});

const apiServerErrors = (object: JsonObject) => {
  const version = crdVersionFor(object.apiVersion as string, object.kind as string)!;
  const definition = CRD_DEFINITIONS.find((d) => d.versions.includes(version))!;
  return validateBySchema(object, rootSchema(definition, version)).map((c) => `${c.field}: ${c.message}`);
};
const webhookErrors = (object: JsonObject) => (crdRefusal(object)?.errors ?? []).map((e) => `${e.field}: ${e.message}`);

const CASES: Record<string, JsonObject> = {
  'an enum value': cpol({ validationFailureAction: 'Enforse', rules: [rule] }),
  'a rule enum': cpol({ rules: [{ ...rule, validate: { ...rule.validate, failureAction: 'enforce' } }] }),
  'a wrong type': cpol({ background: 'yes', webhookTimeoutSeconds: '10', rules: [rule] }),
  'a missing required field': cpol({ rules: [{ name: 'r', validate: rule.validate }] }),
  'a context entry with two sources': cpol({
    rules: [{ ...rule, context: [{ name: 'c', variable: { value: 1 }, configMap: { name: 'x' } }] }],
  }),
  'a rule name too long': cpol({ rules: [{ ...rule, name: 'r'.repeat(64) }] }),
  'an exception without exceptions': {
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name: 'e', namespace: 'default' },
    spec: { match },
  },
  'a cleanup policy with a bad propagation policy': {
    apiVersion: 'kyverno.io/v2',
    kind: 'ClusterCleanupPolicy',
    metadata: { name: 'c' },
    spec: { schedule: '* * * * *', match, deletionPropagationPolicy: 'Later' },
  },
  'a generating policy without a generation (minItems)': {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'GeneratingPolicy',
    metadata: { name: 'g' },
    spec: { generate: [] },
  },
  'a generating policy without generate': {
    apiVersion: 'policies.kyverno.io/v1beta1',
    kind: 'NamespacedGeneratingPolicy',
    metadata: { name: 'g', namespace: 'team' },
    spec: { evaluation: { synchronize: { enabled: 'yes' } } },
  },
  'a mutation without its patch type': {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'MutatingPolicy',
    metadata: { name: 'm' },
    spec: { failurePolicy: 'Sometimes', mutations: [{ jsonPatch: { expression: '[]' } }] },
  },
  'a deleting policy without a schedule, with a bad propagation policy': {
    apiVersion: 'policies.kyverno.io/v1alpha1',
    kind: 'DeletingPolicy',
    metadata: { name: 'd' },
    spec: { conditions: [{ name: 'c' }], deletionPropagationPolicy: 'Later' },
  },
  'a global context entry with neither source': {
    apiVersion: 'kyverno.io/v2alpha1',
    kind: 'GlobalContextEntry',
    metadata: { name: 'g' },
    spec: {},
  },
};

describe('the webhooks refuse as the API server does with the generated CRDs', () => {
  for (const [name, object] of Object.entries(CASES)) {
    it(name, () => {
      const expected = apiServerErrors(object);
      expect(expected.length).toBeGreaterThan(0);
      expect(webhookErrors(object)).toEqual(expected);
    });
  }

  it("an undeclared field is the webhooks' to refuse, as strict field validation words it", () => {
    const object = cpol({ rules: [{ ...rule, validate: { mesage: 'm', pattern: {} } }] });
    expect(apiServerErrors(object)).toEqual([]);
    expect(crdRefusal(object)?.message).toBe('strict decoding error: unknown field "spec.rules[0].validate.mesage"');
  });

  it('lets an update keep a problem the stored object already had, not add one (kube ratchets so)', () => {
    const stored = cpol({ rules: [{ ...rule, validate: { mesage: 'm', pattern: {} } }] });
    expect(crdRefusal({ ...stored, status: { ready: true } }, stored)).toBeUndefined();
    expect(crdRefusal(cpol({ background: 'no', rules: (stored.spec as JsonObject).rules! }), stored)?.message).toBe(
      'ClusterPolicy.kyverno.io "p" is invalid: spec.background: Invalid value: "string": ' +
        'spec.background in body must be of type boolean: "string"',
    );
  });

  it('admits a valid policy', () => {
    expect(crdRefusal(cpol({ rules: [rule] }))).toBeUndefined();
    expect(apiServerErrors(cpol({ rules: [rule] }))).toEqual([]);
  });
});
