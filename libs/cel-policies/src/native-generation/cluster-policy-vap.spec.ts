import type { Policy, PolicyException } from '@edict/engine';
import { describe, expect, it } from 'vitest';
import { canGenerateVap } from './cluster-policy-eligibility';
import { buildClusterPolicyVap } from './cluster-policy-vap';
import type { KindResolver } from './types';

const KINDS: Record<string, { group: string; version: string; resource: string }> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  Namespace: { group: '', version: 'v1', resource: 'namespaces' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
};
const resolve: KindResolver = (kind) => (KINDS[kind] ? [KINDS[kind]] : []);

function cpol(rule: Partial<Policy['spec']['rules'][number]>, spec: Partial<Policy['spec']> = {}): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'check', uid: 'uid-1', labels: {} },
    spec: {
      rules: [
        {
          name: 'rule',
          match: { any: [{ resources: { kinds: ['Deployment'] } }] },
          validate: { cel: { generate: true, expressions: [{ expression: 'true' }] } as never },
          ...rule,
        },
      ],
      ...spec,
    },
  };
}

function polex(spec: Partial<PolicyException['spec']>): PolicyException {
  return {
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name: 'ex', namespace: 'default' },
    spec: { match: {}, exceptions: [{ policyName: 'check', ruleNames: ['rule'] }], ...spec },
  };
}

const message = (policy: Policy, exceptions: PolicyException[] = []): string | undefined => {
  const result = canGenerateVap(policy, exceptions);
  return result.ok ? undefined : result.message;
};

describe('canGenerateVap (ClusterPolicy eligibility, with Kyverno status messages)', () => {
  it('accepts one validate.cel rule with generate: true', () => {
    expect(message(cpol({}))).toBeUndefined();
  });

  it('refuses no rules, several rules, non-CEL rules and generate not true', () => {
    expect(message({ ...cpol({}), spec: { rules: [] } })).toBe(
      'skip generating ValidatingAdmissionPolicy: no rules found.',
    );
    const two = cpol({});
    two.spec.rules.push({ ...two.spec.rules[0], name: 'second' });
    expect(message(two)).toBe('skip generating ValidatingAdmissionPolicy: multiple rules are not applicable.');
    expect(message(cpol({ validate: { pattern: { a: 'b' } } }))).toBe(
      'skip generating ValidatingAdmissionPolicy for non CEL rules.',
    );
    expect(message(cpol({ validate: { cel: { expressions: [] } } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: validate.cel.generate is not set to true.',
    );
  });

  it('refuses failure-action overrides that are several or name namespaces', () => {
    expect(message(cpol({}, { validationFailureActionOverrides: [{ action: 'Audit' }, { action: 'Enforce' }] }))).toBe(
      'skip generating ValidatingAdmissionPolicy: multiple validationFailureActionOverrides are not applicable.',
    );
    expect(message(cpol({}, { validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['a'] }] }))).toBe(
      'skip generating ValidatingAdmissionPolicy: Namespaces in validationFailureActionOverrides is not applicable.',
    );
  });

  it('refuses user info, annotations, wildcard names and namespaces, and several all entries', () => {
    expect(message(cpol({ match: { any: [{ roles: ['admin'], resources: { kinds: ['Pod'] } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: Roles / ClusterRoles / Subjects in `any/all` is not applicable.',
    );
    expect(message(cpol({ match: { any: [{ resources: { kinds: ['Pod'], annotations: { a: 'b' } } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: Annotations in resource description is not applicable.',
    );
    expect(message(cpol({ match: { any: [{ resources: { kinds: ['Pod'], names: ['web-*'] } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: wildcards in resource name is not applicable.',
    );
    expect(message(cpol({ match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['prod-?'] } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: wildcards in namespace name is not applicable.',
    );
    expect(
      message(cpol({ match: { all: [{ resources: { kinds: ['Pod'] } }, { resources: { kinds: ['Deployment'] } }] } })),
    ).toBe("skip generating ValidatingAdmissionPolicy: multiple 'all' in the match block is not applicable.");
  });

  it('refuses selectors across several match entries and in exclusions, and namespaced exclusions of kinds', () => {
    const selector = { matchLabels: { app: 'x' } };
    expect(
      message(
        cpol({
          match: { any: [{ resources: { kinds: ['Pod'], selector } }, { resources: { kinds: ['Deployment'] } }] },
        }),
      ),
    ).toBe(
      'skip generating ValidatingAdmissionPolicy: NamespaceSelector / ObjectSelector across multiple resources in the match block are not applicable.',
    );
    expect(message(cpol({ exclude: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: selector } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: NamespaceSelector / ObjectSelector in the exclude block is not applicable.',
    );
    expect(message(cpol({ exclude: { any: [{ resources: { kinds: ['Pod'], namespaces: ['a'] } }] } }))).toBe(
      'skip generating ValidatingAdmissionPolicy: excluding a resource within a namespace is not applicable.',
    );
  });

  it('refuses exceptions with several rule names, conditions, selectors or several all entries', () => {
    const policy = cpol({});
    expect(message(policy, [polex({ exceptions: [{ policyName: 'check', ruleNames: ['a', 'b'] }] })])).toBe(
      'skip generating ValidatingAdmissionPolicy: multiple ruleNames in PolicyException is not applicable.',
    );
    expect(message(policy, [polex({ conditions: { any: [] } })])).toBe(
      'skip generating ValidatingAdmissionPolicy: Conditions in PolicyException is not applicable.',
    );
    expect(
      message(policy, [polex({ match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: {} } } }] } })]),
    ).toBe(
      'skip generating ValidatingAdmissionPolicy: NamespaceSelector / ObjectSelector in the exclude block is not applicable.',
    );
    expect(
      message(policy, [
        polex({ match: { all: [{ resources: { kinds: ['Pod'] } }, { resources: { kinds: ['Deployment'] } }] } }),
      ]),
    ).toBe(
      "skip generating ValidatingAdmissionPolicy: multiple 'all' in the PolicyException's match block is not applicable.",
    );
  });
});

describe('buildClusterPolicyVap', () => {
  it('groups kinds per group/version, sorts resources, adds ephemeral containers to pods, and binds Audit as Audit+Warn', () => {
    const policy = cpol({
      match: { any: [{ resources: { kinds: ['StatefulSet', 'Deployment', 'Pod'], operations: ['CREATE'] } }] },
      celPreconditions: [{ name: 'only', expression: 'true' }],
      validate: {
        failureAction: 'Audit',
        cel: {
          generate: true,
          expressions: [{ expression: 'true', message: 'm' }],
          variables: [{ name: 'v', expression: '1' }],
        } as never,
      },
    });
    const { policy: vap, binding } = buildClusterPolicyVap(policy, [], resolve);
    expect(vap.metadata).toEqual({
      name: 'cpol-check',
      labels: { 'app.kubernetes.io/managed-by': 'kyverno' },
      ownerReferences: [{ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'check', uid: 'uid-1' }],
    });
    expect(vap.spec).toEqual({
      matchConstraints: {
        resourceRules: [
          {
            operations: ['CREATE'],
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            resources: ['deployments', 'statefulsets'],
          },
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods', 'pods/ephemeralcontainers'],
          },
        ],
      },
      variables: [{ name: 'v', expression: '1' }],
      validations: [{ expression: 'true', message: 'm' }],
      matchConditions: [{ name: 'only', expression: 'true' }],
    });
    expect(binding.metadata.name).toBe('cpol-check-binding');
    expect(binding.spec).toEqual({ policyName: 'cpol-check', validationActions: ['Audit', 'Warn'] });
  });

  it('turns match namespaces into a namespace selector, wildcard kinds into */*/*, Enforce into Deny', () => {
    const policy = cpol(
      { match: { all: [{ resources: { kinds: ['*'], namespaces: ['production', 'staging'] } }] } },
      { validationFailureAction: 'Enforce' },
    );
    const { policy: vap, binding } = buildClusterPolicyVap(policy, [], resolve);
    expect(vap.spec.matchConstraints).toEqual({
      resourceRules: [
        {
          operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'],
          apiGroups: ['*'],
          apiVersions: ['*'],
          resources: ['*'],
        },
      ],
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['production', 'staging'] }],
      },
    });
    expect(binding.spec.validationActions).toEqual(['Deny']);
  });

  it('turns exclusions and exceptions into exclude rules, namespaces without kinds into Namespace rules', () => {
    const policy = cpol({
      match: { any: [{ resources: { kinds: ['Deployment'], selector: { matchLabels: { app: 'critical' } } } }] },
      exclude: { any: [{ resources: { namespaces: ['kube-system'] } }] },
    });
    const exception = polex({ match: { any: [{ resources: { kinds: ['Deployment'], names: ['important-tool'] } }] } });
    const { policy: vap } = buildClusterPolicyVap(policy, [exception], resolve);
    expect(vap.spec.matchConstraints).toEqual({
      resourceRules: [
        {
          operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'],
          apiGroups: ['apps'],
          apiVersions: ['v1'],
          resources: ['deployments'],
        },
      ],
      objectSelector: { matchLabels: { app: 'critical' } },
      excludeResourceRules: [
        {
          resourceNames: ['kube-system'],
          operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'],
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['namespaces'],
        },
        {
          resourceNames: ['important-tool'],
          operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'],
          apiGroups: ['apps'],
          apiVersions: ['v1'],
          resources: ['deployments'],
        },
      ],
    });
  });

  it('carries the reporting exclusion label and refuses a kind discovery does not resolve to one resource', () => {
    const labelled = cpol({});
    labelled.metadata.labels = { 'reports.kyverno.io/disabled': '' };
    expect(buildClusterPolicyVap(labelled, [], resolve).policy.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'kyverno',
      'reports.kyverno.io/disabled': 'true',
    });
    const unknown = cpol({ match: { any: [{ resources: { kinds: ['Widget'] } }] } });
    expect(() => buildClusterPolicyVap(unknown, [], resolve)).toThrow('no unique match for kind Widget');
  });
});
