import { describe, expect, it } from 'vitest';
import { attributesFor, namespace } from '../testing/attributes';
import { binding, deployment, vap } from '../testing/policies';
import { compileValidatingAdmissionPolicy } from './compile';
import { dispatchValidatingAdmissionPolicies } from './dispatch';

describe('dispatchValidatingAdmissionPolicies', () => {
  it('answers the first denial among all policies and keeps every warning and annotation', async () => {
    const policies = [
      vap('warns', { validations: [{ expression: 'false', message: 'heads up' }] }),
      vap('annotates', { auditAnnotations: [{ key: 'seen', valueExpression: 'object.metadata.name' }] }),
      vap('denies-1', { validations: [{ expression: 'false', message: 'first' }] }),
      vap('denies-2', { validations: [{ expression: 'false', message: 'second' }] }),
    ].map(compileValidatingAdmissionPolicy);
    const bindings = [
      binding('w', 'warns', { validationActions: ['Warn'] }),
      binding('a', 'annotates', { validationActions: ['Audit'] }),
      binding('d1', 'denies-1'),
      binding('d2', 'denies-2'),
    ];
    const result = await dispatchValidatingAdmissionPolicies(policies, bindings, attributesFor(deployment('web', 1)), {
      namespaceObject: namespace('team-a'),
    });
    expect(result.denied).toMatchObject({
      policy: 'denies-1',
      message: "ValidatingAdmissionPolicy 'denies-1' with binding 'd1' denied request: first",
    });
    expect(result.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'warns' with binding 'w': heads up",
    ]);
    expect(result.auditAnnotations).toEqual({ 'annotates/seen': 'web' });
    expect(result.evaluations).toHaveLength(4);
  });
});
