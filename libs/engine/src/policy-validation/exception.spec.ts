import { describe, expect, it } from 'vitest';
import { validatePolicyException } from './index';
import { exceptionFromYaml, expectNoErrors, expectOneError, warnings } from '@edict/engine/testing';

const BODY = [
  'exceptions:',
  '- policyName: p',
  '  ruleNames: [r]',
  'match:',
  '  any:',
  '  - resources:',
  '      kinds: [Pod]',
];

describe('validatePolicyException', () => {
  it('accepts a plain exception', () => {
    const ds = validatePolicyException(exceptionFromYaml(BODY.join('\n')));
    expect(ds).toEqual([]);
  });

  it('warns when the namespace is not one exceptions are taken from, or the feature is off', () => {
    const ds = validatePolicyException(exceptionFromYaml(BODY.join('\n'), 'team'), {
      allowedNamespaces: ['kyverno', 'policy-*'],
    });
    expectNoErrors(ds);
    expect(warnings(ds).map((d) => `${d.path}: ${d.message}`)).toEqual([
      'metadata.namespace: PolicyException resource namespace must match the defined namespace.',
    ]);
    expect(
      validatePolicyException(exceptionFromYaml(BODY.join('\n'), 'policy-a'), { allowedNamespaces: ['policy-*'] }),
    ).toEqual([]);
    expect(warnings(validatePolicyException(exceptionFromYaml(BODY.join('\n')), { enabled: false }))[0]!.message).toBe(
      'PolicyException resources would not be processed until it is enabled.',
    );
  });

  it('each exception names a policy', () => {
    const ds = validatePolicyException(
      exceptionFromYaml(['exceptions:', '- policyName: ""', '  ruleNames: [r]', ...BODY.slice(3)].join('\n')),
    );
    expectOneError(ds, 'spec.exceptions[0].policyName', 'An exception requires a policy name');
  });

  it('user info in match needs background: false', () => {
    const subjects = [...BODY, '    subjects:', '    - kind: User', '      name: u'];
    expectOneError(
      validatePolicyException(exceptionFromYaml(subjects.join('\n'))),
      'spec.match.any[0].subjects',
      'Usage of user info is forbidden',
    );
    expectNoErrors(validatePolicyException(exceptionFromYaml(['background: false', ...subjects].join('\n'))));
  });

  it('match is checked like a rule match', () => {
    const both = [...BODY, '  all:', '  - resources:', '      kinds: [Pod]'];
    expectOneError(
      validatePolicyException(exceptionFromYaml(both.join('\n'))),
      'spec.match',
      "Can't specify any and all together",
    );
  });

  it('podSecurity exclusions follow the control scope', () => {
    const ds = validatePolicyException(
      exceptionFromYaml([...BODY, 'podSecurity:', '- controlName: Capabilities'].join('\n')),
    );
    expectOneError(
      ds,
      'spec.podSecurity[0].controlName',
      'exclude.images must be specified for the container level control',
    );
  });
});

describe('validatePolicyException: fields of the wrong type', () => {
  it('names each field of the wrong type instead of throwing', () => {
    const ds = validatePolicyException(
      exceptionFromYaml(['exceptions: {policyName: p}', 'match:', '  any:', '  - subjects: x'].join('\n')),
    );
    expect(ds.map((d) => `${d.path}: ${d.message}`)).toEqual([
      'spec.exceptions: expected array, got object',
      'spec.match.any[0].subjects: expected array, got string "x"',
    ]);
  });
});

describe('validatePolicyException: metadata of the wrong type', () => {
  it('reports it before the namespace check reads it', () => {
    const exception = exceptionFromYaml(BODY.join('\n'));
    (exception.metadata as unknown as Record<string, unknown>)['namespace'] = ['x'];
    (exception.metadata as unknown as Record<string, unknown>)['name'] = { toString: 1 };
    const ds = validatePolicyException(exception, { allowedNamespaces: ['kyverno'] });
    expect(ds.map((d) => `${d.object} ${d.path}: ${d.message}`)).toEqual([
      'PolicyException metadata.name: expected string, got object',
      'PolicyException metadata.namespace: expected string, got array',
    ]);
  });
});
