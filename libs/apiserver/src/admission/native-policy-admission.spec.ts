// NativePolicyAdmission's bounds, on typed fakes: the evaluation deadline fails a request closed.
import type { JsonObject } from '@edict/foundation';
import { DEDUCED_SHAPE } from '@edict/native-policies';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TYPES } from '../registry/builtin-types';
import { ApiError } from '../status';
import { AuditLog } from './audit-log';
import { NativePolicyAdmission } from './native-policy-admission';
import type { NativePolicyObjects } from './native/policy-source';
import { NO_ADMISSION } from './admission-steps';
import { DEFAULT_USER, type AdmissionAttributes } from './types';

const V1 = 'admissionregistration.k8s.io/v1';
const CONFIG_MAPS = BUILTIN_TYPES.find((type) => type.plural === 'configmaps')!;

function objects(policies: JsonObject[], bindings: JsonObject[]): NativePolicyObjects {
  return {
    validatingPolicies: () => policies,
    validatingBindings: () => bindings,
    mutatingPolicies: () => [],
    mutatingBindings: () => [],
    namespace: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    params: { namespaced: () => true, get: () => undefined, list: () => [] },
    equivalents: () => [],
    shape: () => DEDUCED_SHAPE,
  };
}

const DIGITS = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
const policy: JsonObject = {
  apiVersion: V1,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'slow' },
  spec: {
    failurePolicy: 'Ignore',
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    },
    // About 10^4 steps: well within the cost limit, long enough for the deadline to be looked at.
    validations: [{ expression: `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, true))))` }],
  },
};
const binding: JsonObject = {
  apiVersion: V1,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'slow' },
  spec: { policyName: 'slow', validationActions: ['Deny'] },
};

const attributes: AdmissionAttributes = {
  operation: 'CREATE',
  type: CONFIG_MAPS,
  subresource: '',
  name: 'cm',
  namespace: 'default',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } },
  dryRun: false,
  options: {},
  userInfo: DEFAULT_USER,
};

describe('NativePolicyAdmission', () => {
  it('fails the request closed when the evaluation deadline passes, whatever the failurePolicy', async () => {
    const admission = new NativePolicyAdmission(
      {
        objects: objects([policy], [binding]),
        authorize: () => ({ allowed: true }),
        audit: new AuditLog(),
        deadlineMs: 0,
      },
      NO_ADMISSION,
    );
    const refused = await admission.validate(attributes, []).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe(500);
    expect((refused as ApiError).message).toContain('admission policies did not finish in time');
  });

  it('admits within the deadline', async () => {
    const admission = new NativePolicyAdmission(
      { objects: objects([policy], [binding]), authorize: () => ({ allowed: true }), audit: new AuditLog() },
      NO_ADMISSION,
    );
    await expect(admission.validate(attributes, [])).resolves.toBeUndefined();
  });
});
