import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { ValidatingPolicySpec } from '../api/types';
import { matching, validatingPolicy } from '../testing';
import { compileValidatingPolicy, validatingPolicyErrors } from './compile-policy';
import { ValidatingPolicyError } from './policy-error';

const base: ValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  validations: [{ expression: 'object.metadata.name != ""', message: 'named' }],
};

function errorsOf(spec: ValidatingPolicySpec) {
  return validatingPolicyErrors(validatingPolicy('p', spec));
}

describe('validatingPolicyErrors', () => {
  it('is empty for a valid policy', () => {
    expect(errorsOf(base)).toEqual([]);
  });

  it('names the field, the expression and the compiler message of a bad expression', () => {
    const errors = errorsOf({
      ...base,
      validations: [...(base.validations ?? []), { expression: 'object.spec.(' }, { expression: 'object.kind' }],
    });
    expect(errors.map((error) => error.field)).toEqual(['spec.validations[1].expression']);
    expect(errors[0]?.message).toMatch(/^Invalid value: "object\.spec\.\(": compilation failed: /);
  });

  it('refuses results of the wrong type', () => {
    const errors = errorsOf({
      ...base,
      validations: [{ expression: "'text'", messageExpression: '1 + 1' }],
      matchConditions: [{ name: 'c', expression: '42' }],
    });
    expect(errors.map((error) => error.field).sort()).toEqual([
      'spec.matchConditions[0].expression',
      'spec.validations[0].expression',
      'spec.validations[0].messageExpression',
    ]);
    expect(errors.every((error) => /must evaluate to (bool|string)/.test(error.message))).toBe(true);
  });

  it('refuses unknown variables, variables declared later and variables in match conditions', () => {
    const errors = errorsOf({
      ...base,
      matchConditions: [{ name: 'c', expression: 'variables.a == 1' }],
      variables: [
        { name: 'a', expression: 'variables.b + 1' },
        { name: 'b', expression: '1' },
      ],
      validations: [
        { expression: 'variables.a == 2 && variables.missing' },
        { expression: "variables.b == 1 && 'variables.none' != ''" },
      ],
    });
    expect(errors).toEqual([
      {
        field: 'spec.matchConditions[0].expression',
        message: `Invalid value: "variables.a == 1": compilation failed: undeclared reference to 'variables'`,
      },
      {
        field: 'spec.variables[0].expression',
        message: `Invalid value: "variables.b + 1": compilation failed: undefined field 'b'`,
      },
      {
        field: 'spec.validations[0].expression',
        message: `Invalid value: "variables.a == 2 && variables.missing": compilation failed: undefined field 'missing'`,
      },
    ]);
  });

  it("checks the spec's fields with Kyverno's wording", () => {
    expect(errorsOf({ ...base, validationActions: ['test' as 'Deny'] })).toEqual([
      {
        field: 'spec.validationActions[0]',
        message: 'Unsupported value: "test": supported values: "Deny", "Audit", "Warn"',
      },
    ]);
    expect(errorsOf({ validations: base.validations })).toEqual([
      {
        field: 'spec.matchConstraints',
        message: 'Required value: a matchConstraints with at least one resource rule is required',
      },
    ]);
    const fields = errorsOf({
      matchConstraints: base.matchConstraints,
      validationActions: ['Deny', 'Warn', 'Deny'],
      failurePolicy: 'Sometimes' as 'Fail',
      evaluation: { mode: 'JSON' },
      webhookConfiguration: { timeoutSeconds: 31 },
      variables: [
        { name: 'not-an-identifier', expression: '1' },
        { name: 'x', expression: '1' },
        { name: 'x', expression: '2' },
      ],
    }).map((error) => error.field);
    expect(fields).toEqual([
      'spec.failurePolicy',
      'spec.validationActions[2]',
      'spec.validationActions',
      'spec.validations',
      'spec.variables[0].name',
      'spec.variables[2].name',
      'spec.webhookConfiguration.timeoutSeconds',
    ]);
  });

  it('refuses the admission request in JSON mode, where the payload is object', () => {
    const json: ValidatingPolicySpec = {
      evaluation: { mode: 'JSON' },
      validations: [{ expression: 'object.data.value > 10' }],
    };
    expect(errorsOf(json)).toEqual([]);
    const errors = errorsOf({ ...json, validations: [{ expression: "request.operation == 'CREATE'" }] });
    expect(errors.map((error) => error.field)).toEqual(['spec.validations[0].expression']);
    expect(errors[0]?.message).toContain("undeclared reference to 'request'");
  });

  it("refuses Kyverno's authorization modes (Envoy, HTTP) with a clear message", () => {
    const errors = errorsOf({ evaluation: { mode: 'Envoy' as 'JSON' }, validations: [{ expression: 'true' }] });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('spec.evaluation.mode');
    expect(errors[0]?.message).toContain('the Envoy and HTTP authorization modes are not supported');
  });

  it('refuses objects that are not ValidatingPolicies', () => {
    expect(
      validatingPolicyErrors({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'x' } })[0]?.field,
    ).toBe('kind');
  });
});

describe('compileValidatingPolicy', () => {
  it('compiles once per object and per uid and resourceVersion', () => {
    const policy = validatingPolicy('p', base);
    expect(compileValidatingPolicy(policy)).toBe(compileValidatingPolicy(policy));
    const versioned = (): KubeObject => ({
      ...validatingPolicy('v', base),
      metadata: { name: 'v', uid: 'u1', resourceVersion: '7' },
    });
    expect(compileValidatingPolicy(versioned())).toBe(compileValidatingPolicy(versioned()));
  });

  it('throws every problem at once', () => {
    const policy = validatingPolicy('bad', { validations: [{ expression: '1' }, { expression: '(' }] });
    let thrown: unknown;
    try {
      compileValidatingPolicy(policy);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidatingPolicyError);
    expect((thrown as ValidatingPolicyError).errors.map((error) => error.field)).toEqual([
      'spec.matchConstraints',
      'spec.validations[0].expression',
      'spec.validations[1].expression',
    ]);
  });

  it('reads the defaults Kyverno applies', () => {
    const compiled = compileValidatingPolicy(validatingPolicy('d', base));
    expect(compiled).toMatchObject({
      kind: 'ValidatingPolicy',
      validationActions: ['Deny'],
      failurePolicy: 'Fail',
      admission: true,
      background: true,
      mode: 'Kubernetes',
    });
    expect(compiled.namespace).toBeUndefined();
    const configured = compileValidatingPolicy(
      validatingPolicy(
        'n',
        {
          ...base,
          validationActions: ['Audit', 'Warn'],
          failurePolicy: 'Ignore',
          evaluation: { admission: { enabled: false }, background: { enabled: false } },
          webhookConfiguration: { timeoutSeconds: 5 },
        },
        'team-a',
      ),
    );
    expect(configured).toMatchObject({
      kind: 'NamespacedValidatingPolicy',
      namespace: 'team-a',
      validationActions: ['Audit', 'Warn'],
      failurePolicy: 'Ignore',
      admission: false,
      background: false,
      timeoutSeconds: 5,
    });
  });

  it('adds the autogen resource rules to matchConstraints and shows them in autogenStatus', () => {
    const compiled = compileValidatingPolicy(validatingPolicy('a', base));
    expect(compiled.matchConstraints.resourceRules?.map((rule) => rule.resources)).toEqual([
      ['pods'],
      ['cronjobs'],
      ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
      ['jobs'],
    ]);
    expect(Object.keys(compiled.autogenStatus.configs as object)).toEqual(['cronjobs', 'defaults']);
  });
});
