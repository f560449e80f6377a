import { describe, expect, it } from 'vitest';
import { binding, vap } from '../testing/policies';
import { compileValidatingAdmissionPolicy, ValidatingAdmissionPolicyError } from './compile';
import { isValidatingAdmissionPolicy, isValidatingAdmissionPolicyBinding } from './spec';
import { validatingAdmissionPolicyBindingErrors, validatingAdmissionPolicyErrors } from './validation';

const fields = (errors: { field: string }[]) => errors.map((e) => e.field);

describe('validatingAdmissionPolicyErrors', () => {
  it('accepts a valid policy in each served version', () => {
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const policy = vap('ok', { validations: [{ expression: 'true' }] }, `admissionregistration.k8s.io/${version}`);
      expect(isValidatingAdmissionPolicy(policy)).toBe(true);
      expect(validatingAdmissionPolicyErrors(policy)).toEqual([]);
    }
    expect(
      isValidatingAdmissionPolicy({ apiVersion: 'admissionregistration.k8s.io/v2', kind: 'ValidatingAdmissionPolicy' }),
    ).toBe(false);
  });

  it('names each expression that does not compile, with the compiler message', () => {
    const errors = validatingAdmissionPolicyErrors(
      vap('p', {
        validations: [
          { expression: 'object.spec.replicas > ' },
          { expression: '1 + 1' },
          { expression: 'true', messageExpression: '42' },
          { expression: 'params.x == 1' },
        ],
      }),
    );
    expect(fields(errors)).toEqual([
      'spec.validations[0].expression',
      'spec.validations[1].expression',
      'spec.validations[2].messageExpression',
      'spec.validations[3].expression',
    ]);
    expect(errors[0]!.message).toMatch(/^Invalid value: "object.spec.replicas > ": compilation failed: /);
    expect(errors[1]!.message).toMatch(/compilation failed: .*bool/);
    expect(errors[3]!.message).toMatch(/params/);
  });

  it('declares params only with a paramKind, and no authorizer in messageExpressions', () => {
    const withParams = vap('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        { expression: 'params.data.x == "1"', messageExpression: "authorizer.path('/x').check('get').reason()" },
      ],
    });
    expect(fields(validatingAdmissionPolicyErrors(withParams))).toEqual(['spec.validations[0].messageExpression']);
  });

  it('refuses what the API refuses in the spec', () => {
    const errors = validatingAdmissionPolicyErrors({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'Bad_Name' },
      spec: {
        failurePolicy: 'Sometimes',
        paramKind: { apiVersion: 'a/b/c' },
        matchConstraints: {
          matchPolicy: 'Fuzzy',
          resourceRules: [
            {
              apiGroups: [],
              apiVersions: ['*', 'v1'],
              operations: ['*', 'CREATE'],
              resources: ['*/*', 'pods'],
              scope: 'Global',
            },
          ],
        },
        variables: [{ name: 'not-an-ident', expression: 'true' }],
        validations: [{ expression: 'true', message: 'two\nlines', reason: 'Teapot' }],
        auditAnnotations: [
          { key: 'k', valueExpression: "'v'" },
          { key: 'k', valueExpression: "'w'" },
        ],
      },
    });
    expect(fields(errors)).toEqual([
      'metadata.name',
      'spec.failurePolicy',
      'spec.paramKind.apiVersion',
      'spec.paramKind.kind',
      'spec.matchConstraints.matchPolicy',
      'spec.matchConstraints.resourceRules[0].operations',
      'spec.matchConstraints.resourceRules[0].apiGroups',
      'spec.matchConstraints.resourceRules[0].apiVersions',
      'spec.matchConstraints.resourceRules[0].resources',
      'spec.matchConstraints.resourceRules[0].scope',
      'spec.variables[0].name',
      'spec.validations[0].message',
      'spec.validations[0].reason',
      // An invalid policy name makes every `<policy>/<key>` invalid too.
      'spec.auditAnnotations[0].key',
      'spec.auditAnnotations[1].key',
      'spec.auditAnnotations[1].key',
    ]);
    expect(errors[1]!.message).toBe('Unsupported value: "Sometimes": supported values: "Fail", "Ignore"');
    expect(errors.find((e) => e.field.endsWith('.operations'))!.message).toMatch(
      /if '\*' is present, must not specify other operations/,
    );
    expect(errors.find((e) => e.field === 'spec.variables[0].name')!.message).toMatch(/not a valid CEL identifier/);
  });

  it('requires matchConstraints with resourceRules, and a validation or an audit annotation', () => {
    const errors = validatingAdmissionPolicyErrors({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {},
    });
    expect(errors).toEqual([
      { field: 'spec.matchConstraints', message: 'Required value' },
      {
        field: 'spec.validations',
        message: 'Required value: validations or auditAnnotations must contain at least one item',
      },
      {
        field: 'spec.auditAnnotations',
        message: 'Required value: validations or auditAnnotations must contain at least one item',
      },
    ]);
  });
});

describe('compileValidatingAdmissionPolicy', () => {
  it('compiles once per policy object', () => {
    const policy = vap('p', { validations: [{ expression: 'true' }] });
    expect(compileValidatingAdmissionPolicy(policy)).toBe(compileValidatingAdmissionPolicy(policy));
  });

  it('throws with the field of every expression that does not compile', () => {
    const policy = vap('p', {
      matchConditions: [{ name: 'm', expression: 'object.(' }],
      variables: [{ name: 'v', expression: '' }],
      validations: [{ expression: 'true' }],
    });
    try {
      compileValidatingAdmissionPolicy(policy);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidatingAdmissionPolicyError);
      expect(fields([...(error as ValidatingAdmissionPolicyError).errors])).toEqual([
        'spec.matchConditions[0].expression',
        'spec.variables[0].expression',
      ]);
      expect((error as Error).message).toMatch(/^spec\.matchConditions\[0\]\.expression: Invalid value/);
    }
  });
});

describe('validatingAdmissionPolicyBindingErrors', () => {
  it('accepts a valid binding', () => {
    const b = binding('b', 'p', { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } });
    expect(isValidatingAdmissionPolicyBinding(b)).toBe(true);
    expect(validatingAdmissionPolicyBindingErrors(b)).toEqual([]);
  });

  it('refuses what the API refuses', () => {
    const errors = validatingAdmissionPolicyBindingErrors(
      binding('b', '', {
        paramRef: { name: 'a/b', selector: {}, parameterNotFoundAction: 'Maybe' },
        validationActions: ['Deny', 'Warn', 'Deny', 'Block'],
      }),
    );
    expect(fields(errors)).toEqual([
      'spec.policyName',
      'spec.paramRef.name',
      'spec.paramRef.name',
      'spec.paramRef.selector',
      'spec.paramRef.parameterNotFoundAction',
      'spec.validationActions[2]',
      'spec.validationActions[3]',
      'spec.validationActions',
    ]);
    expect(errors[1]!.message).toBe(`Invalid value: "a/b": may not contain '/'`);
    expect(errors[2]!.message).toBe('Forbidden: name and selector are mutually exclusive');
    expect(errors.at(-1)!.message).toMatch(/must not contain both Deny and Warn/);
  });

  it('requires a validation action and one of name or selector', () => {
    const errors = validatingAdmissionPolicyBindingErrors(binding('b', 'p', { validationActions: [], paramRef: {} }));
    expect(errors).toEqual([
      { field: 'spec.paramRef', message: 'Required value: one of name or selector must be specified' },
      { field: 'spec.validationActions', message: 'Required value: at least one validation action is required' },
    ]);
  });
});
