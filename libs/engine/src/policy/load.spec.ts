import { describe, expect, it } from 'vitest';
import { formatDiagnostic, isError, type Diagnostic } from '@edict/foundation';
import { loadPolicyDocuments } from './load';

const header = (kind = 'ClusterPolicy', apiVersion = 'kyverno.io/v1') =>
  [`apiVersion: ${apiVersion}`, `kind: ${kind}`, 'metadata:', '  name: p'].join('\n');

/** A valid policy with one rule; `ruleBody` lines are indented under the rule. */
function policyText(ruleBody: string[], options: { kind?: string; apiVersion?: string; spec?: string[] } = {}): string {
  return [
    header(options.kind, options.apiVersion),
    'spec:',
    ...(options.spec ?? []).map((l) => `  ${l}`),
    '  rules:',
    '  - name: r',
    ...ruleBody.map((l) => `    ${l}`),
  ].join('\n');
}

const podMatch = ['match:', '  any:', '  - resources:', '      kinds: [Pod]'];
const simpleValidate = ['validate:', '  message: m', '  pattern:', '    spec: {}'];

function errorsOf(text: string): Diagnostic[] {
  return loadPolicyDocuments(text, 'p.yaml').errors.filter(isError);
}

function only(text: string): Diagnostic {
  const errors = errorsOf(text);
  expect(errors, errors.map(formatDiagnostic).join('\n')).toHaveLength(1);
  return errors[0];
}

describe('loadPolicyDocuments', () => {
  it('loads valid policies, exceptions and other objects apart', () => {
    const text = [
      policyText([...podMatch, ...simpleValidate]),
      '---',
      'apiVersion: kyverno.io/v2',
      'kind: PolicyException',
      'metadata: {name: e, namespace: x}',
      'spec:',
      '  exceptions: [{policyName: p, ruleNames: [r]}]',
      '  match: {any: [{resources: {namespaces: [x]}}]}',
      '---',
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: a}',
    ].join('\n');
    const loaded = loadPolicyDocuments(text, 'p.yaml');
    expect(loaded.errors).toEqual([]);
    expect(loaded.policies.map((p) => p.metadata.name)).toEqual(['p']);
    expect(loaded.exceptions.map((e) => e.metadata.name)).toEqual(['e']);
    expect(loaded.others.map((o) => o.index)).toEqual([2]);
  });

  it('skips only the invalid policy', () => {
    const bad = policyText([...podMatch, 'validate:', '  pattern: {}', '  patern: {}']).replace('name: p', 'name: bad');
    const good = policyText([...podMatch, ...simpleValidate]);
    const loaded = loadPolicyDocuments(`${bad}\n---\n${good}`, 'p.yaml');
    expect(loaded.policies.map((p) => p.metadata.name)).toEqual(['p']);
    expect(loaded.errors).toHaveLength(1);
    expect(formatDiagnostic(loaded.errors[0])).toBe(
      'p.yaml (document 1, line 14): ClusterPolicy/bad: spec.rules[0].validate.patern: unknown field "patern"',
    );
  });

  it('expands policy lists and names the item', () => {
    const text = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: kyverno.io/v1',
      '  kind: ClusterPolicy',
      '  metadata: {name: a}',
      '  spec: {rules: [{name: r, match: {any: [{resources: {kinds: [Pod]}}]}, validate: {pattern: {}}}]}',
      '- apiVersion: kyverno.io/v1',
      '  kind: ClusterPolicy',
      '  metadata: {name: b}',
      '  spec:',
      '    background: "yes"',
    ].join('\n');
    const loaded = loadPolicyDocuments(text, 'l.yaml');
    expect(loaded.policies.map((p) => p.metadata.name)).toEqual(['a']);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toMatchObject({ item: 1, line: 12, path: 'spec.background' });
    expect(formatDiagnostic(loaded.errors[0])).toBe(
      'l.yaml (document 1, item 2, line 12): ClusterPolicy/b: spec.background: expected boolean, got string "yes"',
    );
  });

  it('puts a Policy without namespace in default and drops a ClusterPolicy namespace', () => {
    const ns = loadPolicyDocuments(policyText([...podMatch, ...simpleValidate], { kind: 'Policy' }), 'p.yaml');
    expect(ns.policies[0].metadata.namespace).toBe('default');
    const cluster = loadPolicyDocuments(
      policyText([...podMatch, ...simpleValidate]).replace('  name: p', '  name: p\n  namespace: x'),
      'p.yaml',
    );
    expect(cluster.policies[0].metadata).toEqual({ name: 'p' });
  });

  it('reports YAML errors and non-objects', () => {
    const loaded = loadPolicyDocuments('a: [\n---\n- 1\n', 'p.yaml');
    expect(loaded.errors.map((e) => e.document)).toEqual([0, 1]);
    expect(loaded.errors[1].message).toMatch(/expected a Kubernetes object/);
  });

  it('rejects unknown kyverno.io versions of policies and exceptions', () => {
    expect(only(policyText([...podMatch, ...simpleValidate], { apiVersion: 'kyverno.io/v3' }))).toMatchObject({
      path: 'apiVersion',
      line: 1,
    });
  });

  it('accepts every v1 operator and a bare precondition list in v1', () => {
    const ops = ['Equal', 'Equals', 'NotEqual', 'NotEquals', 'In', 'AnyIn', 'AllIn', 'NotIn', 'AnyNotIn', 'AllNotIn'];
    const more = ['GreaterThanOrEquals', 'GreaterThan', 'LessThanOrEquals', 'LessThan', 'DurationGreaterThanOrEquals'];
    const conditions = [...ops, ...more].map((op) => `- {key: a, operator: ${op}, value: b}`);
    expect(errorsOf(policyText([...podMatch, 'preconditions:', ...conditions, ...simpleValidate]))).toEqual([]);
  });
});

describe('schema errors name the field and its line', () => {
  it('wrong type', () => {
    const d = only(policyText([...podMatch, ...simpleValidate], { spec: ['background: 1'] }));
    expect(d).toMatchObject({ path: 'spec.background', line: 6, message: 'expected boolean, got number 1' });
  });

  it('unknown operator', () => {
    const d = only(
      policyText([
        ...podMatch,
        'validate:',
        '  deny:',
        '    conditions:',
        '      any:',
        '      - key: "{{ request.object.metadata.name }}"',
        '        operator: Contains',
        '        value: x',
      ]),
    );
    expect(d.path).toBe('spec.rules[0].validate.deny.conditions.any[0].operator');
    expect(d.line).toBe(17);
    expect(d.message).toMatch(/^unsupported value "Contains": supported values: "Equal", "Equals"/);
  });

  it('missing rule name', () => {
    const text = policyText([...podMatch, ...simpleValidate]).replace('  - name: r\n    match:', '  - match:');
    const d = only(text);
    expect(d).toMatchObject({ path: 'spec.rules[0].name', line: 7, message: 'required field is missing' });
  });

  it('missing policy name and spec', () => {
    const errors = errorsOf('apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {}\n');
    expect(errors.map((e) => e.path).sort()).toEqual(['metadata.name', 'spec']);
  });

  it('bad enums', () => {
    const errors = errorsOf(
      policyText([...podMatch, 'validate:', '  failureAction: enforce', '  podSecurity: {level: strict}'], {
        spec: ['validationFailureAction: Deny', 'failurePolicy: fail', 'applyRules: Some'],
      }),
    );
    expect(errors.map((e) => e.path)).toEqual([
      'spec.validationFailureAction',
      'spec.failurePolicy',
      'spec.applyRules',
      'spec.rules[0].validate.failureAction',
      'spec.rules[0].validate.podSecurity.level',
    ]);
    expect(errors[0].message).toBe(
      'unsupported value "Deny": supported values: "audit", "enforce", "Audit", "Enforce"',
    );
  });

  it('accepts lowercase validationFailureAction at spec level', () => {
    expect(
      errorsOf(policyText([...podMatch, ...simpleValidate], { spec: ['validationFailureAction: enforce'] })),
    ).toEqual([]);
  });

  it('unknown field in match', () => {
    const d = only(policyText(['match:', '  any:', '  - resource:', '      kinds: [Pod]', ...simpleValidate]));
    expect(d).toMatchObject({
      path: 'spec.rules[0].match.any[0].resource',
      line: 10,
      message: 'unknown field "resource"',
    });
  });

  it('annotation values must be strings', () => {
    const text = policyText([...podMatch, ...simpleValidate]).replace(
      '  name: p',
      '  name: p\n  annotations:\n    kyverno.io/kubernetes-version: 1.26',
    );
    const d = only(text);
    expect(d).toMatchObject({ path: 'metadata.annotations["kyverno.io/kubernetes-version"]', line: 6 });
    expect(d.message).toBe('expected string, got number 1.26');
  });

  it('rule name longer than 63 characters', () => {
    const d = only(policyText([...podMatch, ...simpleValidate]).replace('name: r', `name: ${'x'.repeat(64)}`));
    expect(d.message).toBe('must be no more than 63 characters (has 64)');
  });

  it('duplicate rule names', () => {
    const text = `${policyText([...podMatch, ...simpleValidate])}\n  - name: r\n${[...podMatch, ...simpleValidate].map((l) => `    ${l}`).join('\n')}`;
    expect(only(text)).toMatchObject({ path: 'spec.rules[1].name', message: 'duplicate rule name "r"' });
  });

  it('rule without or with several operations', () => {
    expect(only(policyText(podMatch)).message).toMatch(/defines no operation/);
    const both = only(policyText([...podMatch, ...simpleValidate, 'mutate:', '  patchStrategicMerge: {}']));
    expect(both.message).toBe(
      'rule "r" defines mutate and validate: only one of mutate, validate, generate, verifyImages is allowed per rule',
    );
  });

  it('validate rule with two kinds of check', () => {
    const d = only(policyText([...podMatch, ...simpleValidate, '  deny: {}']));
    expect(d).toMatchObject({ path: 'spec.rules[0].validate', message: expect.stringMatching(/found pattern, deny/) });
  });

  it('match without kinds, and any with all', () => {
    expect(
      only(policyText(['match:', '  any:', '  - resources:', '      namespaces: [a]', ...simpleValidate])),
    ).toMatchObject({
      path: 'spec.rules[0].match.any[0].resources.kinds',
    });
    expect(only(policyText(['match:', '  resources: {}', ...simpleValidate]))).toMatchObject({
      path: 'spec.rules[0].match',
    });
    const both = policyText([...podMatch, '  all:', '  - resources: {kinds: [Pod]}', ...simpleValidate]);
    expect(only(both).message).toBe('any and all cannot be used together');
  });

  it('warns (and keeps the policy) when legacy resources sit beside any', () => {
    const loaded = loadPolicyDocuments(
      policyText([...podMatch, '  resources: {kinds: [Pod]}', ...simpleValidate]),
      'p.yaml',
    );
    expect(loaded.policies).toHaveLength(1);
    expect(loaded.errors).toMatchObject([{ severity: 'warning', path: 'spec.rules[0].match.resources' }]);
  });

  it('context entries need exactly one source', () => {
    const none = only(policyText(['context:', '- name: x', ...podMatch, ...simpleValidate]));
    expect(none).toMatchObject({ path: 'spec.rules[0].context[0]', line: 9 });
    const two = only(
      policyText([
        'context:',
        '- name: x',
        '  variable: {value: 1}',
        '  configMap: {name: c}',
        ...podMatch,
        ...simpleValidate,
      ]),
    );
    expect(two.message).toMatch(/found configMap, variable|found variable, configMap/);
  });

  it('label selector operators and values', () => {
    const sel = [
      'match:',
      '  any:',
      '  - resources:',
      '      kinds: [Pod]',
      '      selector:',
      '        matchExpressions:',
    ];
    expect(
      only(policyText([...sel, '        - {key: a, operator: Equals, values: [b]}', ...simpleValidate])).path,
    ).toBe('spec.rules[0].match.any[0].resources.selector.matchExpressions[0].operator');
    expect(only(policyText([...sel, '        - {key: a, operator: In}', ...simpleValidate])).message).toBe(
      'must be specified when operator is In',
    );
    expect(
      only(
        policyText([
          'match:',
          '  any:',
          '  - resources:',
          '      kinds: [Pod]',
          '      selector: {}',
          ...simpleValidate,
        ]),
      ).message,
    ).toMatch(/no requirements/);
  });

  it('generate rules need a target and only one source', () => {
    const gen = ['generate:', '  kind: ConfigMap', '  name: x', '  data: {}', '  clone: {name: src}'];
    expect(only(policyText([...podMatch, ...gen])).message).toMatch(/only one of data, clone, cloneList, foreach/);
    expect(only(policyText([...podMatch, 'generate:', '  kind: ConfigMap', '  name: x', '  data: {}'])).path).toBe(
      'spec.rules[0].generate.apiVersion',
    );
    expect(errorsOf(policyText([...podMatch, 'generate:', '  cloneList: {kinds: [v1/Secret], namespace: a}']))).toEqual(
      [],
    );
  });

  it('mutate foreach order and pod security exclusion controls', () => {
    const mutate = ['mutate:', '  foreach:', '  - list: a', '    order: Reverse', '    patchStrategicMerge: {}'];
    expect(only(policyText([...podMatch, ...mutate])).path).toBe('spec.rules[0].mutate.foreach[0].order');
    const pss = ['validate:', '  podSecurity:', '    level: baseline', '    exclude:', '    - {controlName: Nope}'];
    expect(only(policyText([...podMatch, ...pss])).path).toBe(
      'spec.rules[0].validate.podSecurity.exclude[0].controlName',
    );
  });

  it('namespaced Policy restrictions', () => {
    const text = policyText(['match:', '  any:', '  - resources: {kinds: [Pod], namespaces: [a]}', ...simpleValidate], {
      kind: 'Policy',
      spec: ['validationFailureActionOverrides: [{action: Audit, namespaces: [a]}]'],
    });
    expect(errorsOf(text).map((e) => e.path)).toEqual([
      'spec.rules[0].match.any[0].resources.namespaces',
      'spec.validationFailureActionOverrides',
    ]);
  });
});

describe('kyverno.io/v2beta1 policies', () => {
  const v2 = { apiVersion: 'kyverno.io/v2beta1' };

  it('accepts any/all matches and any/all conditions', () => {
    const text = policyText(
      [...podMatch, 'preconditions:', '  all: [{key: a, operator: AnyIn, value: [a]}]', ...simpleValidate],
      v2,
    );
    expect(errorsOf(text)).toEqual([]);
  });

  it('rejects the legacy match.resources, bare condition lists, name and the In operator', () => {
    expect(only(policyText(['match:', '  resources: {kinds: [Pod]}', ...simpleValidate], v2)).message).toBe(
      'unknown field "resources"',
    );
    expect(
      only(policyText([...podMatch, 'preconditions:', '- {key: a, operator: Equals, value: a}', ...simpleValidate], v2))
        .message,
    ).toBe('expected object, got array');
    expect(
      only(policyText(['match:', '  any:', '  - resources: {kinds: [Pod], name: x}', ...simpleValidate], v2)).path,
    ).toBe('spec.rules[0].match.any[0].resources.name');
    expect(
      only(
        policyText(
          [...podMatch, 'preconditions:', '  all: [{key: a, operator: In, value: [a]}]', ...simpleValidate],
          v2,
        ),
      ).path,
    ).toBe('spec.rules[0].preconditions.all[0].operator');
  });

  it('lists the operators each version allows, in CRD order, without the deprecated ones in v2beta1', () => {
    const bad = (options: { apiVersion?: string }) =>
      only(
        policyText(
          [...podMatch, 'preconditions:', '  all: [{key: a, operator: Contains, value: [a]}]', ...simpleValidate],
          options,
        ),
      ).message;
    const tail =
      '"AnyIn", "AllIn", "AnyNotIn", "AllNotIn", "GreaterThanOrEquals", "GreaterThan", "LessThanOrEquals", "LessThan", ' +
      '"DurationGreaterThanOrEquals", "DurationGreaterThan", "DurationLessThanOrEquals", "DurationLessThan"';
    expect(bad(v2)).toBe(`unsupported value "Contains": supported values: "Equals", "NotEquals", ${tail}`);
    expect(bad({})).toBe(
      'unsupported value "Contains": supported values: "Equal", "Equals", "NotEqual", "NotEquals", "In", "AnyIn", "AllIn", "NotIn", ' +
        '"AnyNotIn", "AllNotIn", "GreaterThanOrEquals", "GreaterThan", "LessThanOrEquals", "LessThan", ' +
        '"DurationGreaterThanOrEquals", "DurationGreaterThan", "DurationLessThanOrEquals", "DurationLessThan"',
    );
  });
});

describe('PolicyException', () => {
  const exception = (spec: string[]) =>
    [
      'apiVersion: kyverno.io/v2',
      'kind: PolicyException',
      'metadata: {name: e}',
      'spec:',
      ...spec.map((l) => `  ${l}`),
    ].join('\n');

  it('requires match and exceptions with policy and rule names', () => {
    expect(errorsOf(exception(['background: false'])).map((e) => e.path)).toEqual(['spec.match', 'spec.exceptions']);
    const d = only(exception(['match: {any: [{resources: {kinds: [Pod]}}]}', 'exceptions: [{policyName: p}]']));
    expect(d.path).toBe('spec.exceptions[0].ruleNames');
  });

  it('accepts conditions and podSecurity exclusions', () => {
    const text = exception([
      'match: {any: [{resources: {kinds: [Pod]}}]}',
      'exceptions: [{policyName: p, ruleNames: [r]}]',
      'conditions: {any: [{key: "{{ request.object.metadata.name }}", operator: Equals, value: a}]}',
      'podSecurity: [{controlName: Capabilities, images: [nginx]}]',
    ]);
    const loaded = loadPolicyDocuments(text, 'e.yaml');
    expect(loaded.errors).toEqual([]);
    expect(loaded.exceptions).toHaveLength(1);
  });

  it('has no legacy match.resources', () => {
    expect(
      only(exception(['match: {resources: {kinds: [Pod]}}', 'exceptions: [{policyName: p, ruleNames: [r]}]'])).path,
    ).toBe('spec.match.resources');
  });
});
