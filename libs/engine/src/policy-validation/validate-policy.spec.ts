import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy';
import { validatePolicy } from './index';
import { errors, expectNoErrors, expectOneError, policyFromYaml, warnings } from '@edict/engine/testing';

const MATCH_POD = ['  match:', '    any:', '    - resources:', '        kinds: [Pod]'];
const VALIDATE = ['  validate:', '    message: m', '    pattern:', '      metadata:', '        name: "?*"'];

/** `spec` with `background: false` unless told, and one rule named r built from `lines`. */
function spec(lines: string[], head: string[] = ['background: false']): string {
  return [...head, 'rules:', '- name: r', ...lines].join('\n');
}
const check = (lines: string[], head?: string[], options = {}) =>
  validatePolicy(policyFromYaml(spec(lines, head)), options);

describe('validatePolicy: names and operations', () => {
  it('rule names are unique and at most 63 characters', () => {
    const twoRules = (second: string) =>
      validatePolicy(
        policyFromYaml(
          [
            'background: false',
            'rules:',
            '- name: r',
            ...MATCH_POD,
            ...VALIDATE,
            `- name: ${second}`,
            ...MATCH_POD,
            ...VALIDATE,
          ].join('\n'),
        ),
      );
    expectOneError(twoRules('r'), 'spec.rules[1].name', "Duplicate rule name: 'r'");
    expectNoErrors(twoRules('s'));
    expectOneError(twoRules('x'.repeat(64)), 'spec.rules[1].name', 'Too long: may not be more than 63 bytes');
  });

  it('policy names are at most 63 characters and autogen "all" is refused', () => {
    expectOneError(
      validatePolicy(policyFromYaml(spec([...MATCH_POD, ...VALIDATE]), { metadata: `  name: ${'p'.repeat(64)}` })),
      'metadata.name',
      'Too long',
    );
    const all = policyFromYaml(spec([...MATCH_POD, ...VALIDATE]), {
      metadata: '  name: p\n  annotations:\n    pod-policies.kyverno.io/autogen-controllers: all',
    });
    expectOneError(validatePolicy(all), 'metadata.annotations', "Autogen annotation does not support 'all' anymore");
  });

  it('a rule has exactly one of validate, mutate, generate, verifyImages', () => {
    expectOneError(
      check([...MATCH_POD]),
      'spec.rules[0]',
      "No operation defined in the rule 'r'.(supported operations: mutate,validate,generate,verifyImages)",
    );
    const both = check([
      ...MATCH_POD,
      ...VALIDATE,
      '  mutate:',
      '    patchStrategicMerge:',
      '      metadata:',
      '        labels:',
      '          a: b',
    ]);
    expect(errors(both).map((d) => d.message)).toContain(
      "Multiple operations defined in the rule 'r', only one operation (mutate,validate,generate,verifyImages) is allowed per rule",
    );
    expectNoErrors(check([...MATCH_POD, ...VALIDATE]));
  });

  it('imageExtractors only with verifyImages', () => {
    expectOneError(
      check([...MATCH_POD, ...VALIDATE, '  imageExtractors:', '    Task:', '    - path: /spec/image']),
      'spec.rules[0].imageExtractors',
      'imageExtractors can only be defined for verifyImages rule',
    );
  });
});

describe('validatePolicy: verifyImages rules', () => {
  const verify = (entry: string[], extra: string[] = []) =>
    check(
      [
        ...MATCH_POD,
        '  verifyImages:',
        "  - imageReferences: ['ghcr.io/*']",
        '    attestors:',
        '    - entries:',
        '      - keys: {publicKeys: k}',
        ...entry,
        ...extra,
      ],
      ['background: false', 'validationFailureAction: Enforce'],
    );

  it('JMESPath image extractors are refused when digests are mutated (the default)', () => {
    const extractors = [
      '  imageExtractors:',
      '    Task:',
      '    - path: /spec/image',
      '      jmesPath: trim_prefix(@, "x")',
    ];
    expectOneError(
      verify([], extractors),
      'spec.rules[0].imageExtractors',
      'jmespath may not be used in an image extractor when mutating digests with verify images',
    );
    expectNoErrors(verify(['    mutateDigest: false'], extractors));
  });

  it('warns about predicateType and about status in a validate block without the status subresource', () => {
    const ds = verify([
      '    attestations:',
      '    - predicateType: https://slsa.dev/provenance/v0.2',
      '      attestors: []',
      '    validate:',
      '      message: m',
      '      deny:',
      '        conditions:',
      '          any:',
      '          - key: "{{ request.object.status.phase }}"',
      '            operator: Equals',
      '            value: x',
      '      status: {}',
    ]);
    expect(warnings(ds).map((d) => `${d.path}: ${d.message}`)).toEqual([
      "spec.rules[0].verifyImages[0].attestations[0].predicateType: predicateType has been deprecated use 'type: https://slsa.dev/provenance/v0.2' instead of 'predicateType: https://slsa.dev/provenance/v0.2'",
      'spec.rules[0].verifyImages[0].validate: You are matching on status but not including the status subresource in the policy.',
    ]);
  });
});

describe('validatePolicy: match and exclude', () => {
  it('any and all cannot be used together', () => {
    const ds = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '    all:',
      '    - resources:',
      '        kinds: [Pod]',
      ...VALIDATE,
    ]);
    expect(errors(ds).find((d) => d.path === 'spec.rules[0].match')?.message).toBe(
      "Can't specify any and all together",
    );
  });

  it('any/all cannot be mixed with the legacy resources block', () => {
    const ds = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '    resources:',
      '      kinds: [Pod]',
      ...VALIDATE,
    ]);
    expectOneError(ds, 'spec.rules[0].match', "can't specify any/all together with match resources");
    const ex = check([
      ...MATCH_POD,
      '  exclude:',
      '    any:',
      '    - resources:',
      '        namespaces: [a]',
      '    resources:',
      '      namespaces: [b]',
      ...VALIDATE,
    ]);
    expectOneError(ex, 'spec.rules[0].exclude', "can't specify any/all together with exclude resources");
  });

  it('match must select resources and name kinds', () => {
    const empty = check([
      '  match:',
      '    any:',
      '    - subjects:',
      '      - kind: User',
      '        name: u',
      ...VALIDATE,
    ]);
    expect(errors(empty).map((d) => `${d.path}: ${d.message}`)).toContain(
      'spec.rules[0].match.any[0].resources: match resources not specified',
    );
    const noKinds = check(['  match:', '    any:', '    - resources:', '        names: [x]', ...VALIDATE]);
    expectOneError(
      noKinds,
      'spec.rules[0].match.any[0].resources.kinds',
      'at least one element must be specified in a kind block',
    );
    const noKindsSpec = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        names: [x]',
      '  validate:',
      '    message: m',
      '    pattern:',
      '      spec: {}',
    ]);
    expectOneError(
      noKindsSpec,
      'spec.rules[0].match.any[0].resources.kinds',
      'policy can only deal with the metadata field of the resource if the rule does not match any kind',
    );
  });

  it('subjects and roles are well formed', () => {
    const sa = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '      subjects:',
      '      - kind: ServiceAccount',
      '        name: s',
      ...VALIDATE,
    ]);
    expectOneError(
      sa,
      'spec.rules[0].match.any[0].subjects[0].namespace',
      'namespace is required when Kind is ServiceAccount',
    );
    const kind = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '      subjects:',
      '      - kind: Robot',
      '        name: s',
      ...VALIDATE,
    ]);
    expectOneError(
      kind,
      'spec.rules[0].match.any[0].subjects[0].kind',
      "kind must be 'User', 'Group', or 'ServiceAccount'",
    );
    const role = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '      roles: [admin]',
      ...VALIDATE,
    ]);
    expectOneError(role, 'spec.rules[0].match.any[0].roles[0]', 'Role is expected to be in namespace:name format');
    expectNoErrors(
      check([
        '  match:',
        '    any:',
        '    - resources:',
        '        kinds: [Pod]',
        '      roles: [ns:admin]',
        ...VALIDATE,
      ]),
    );
  });

  it('a rule whose exclude removes everything it matches is refused', () => {
    const same = check([
      ...MATCH_POD,
      '  exclude:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      ...VALIDATE,
    ]);
    expectOneError(same, 'spec.rules[0]', 'Rule is matching an empty set');
    const legacy = check([
      '  match:',
      '    resources:',
      '      kinds: [Pod]',
      '  exclude:',
      '    resources:',
      '      kinds: [Pod]',
      ...VALIDATE,
    ]);
    expectOneError(legacy, 'spec.rules[0]', 'Rule is matching an empty set');
    expectNoErrors(
      check([
        ...MATCH_POD,
        '  exclude:',
        '    any:',
        '    - resources:',
        '        namespaces: [kube-system]',
        ...VALIDATE,
      ]),
    );
  });

  it('the wildcard kind needs background off, one kind and a metadata-only rule', () => {
    const wildcard = ['  match:', '    any:', '    - resources:', '        kinds: ["*"]'];
    expectNoErrors(check([...wildcard, ...VALIDATE]));
    expectOneError(
      check([...wildcard, ...VALIDATE], ['background: true']),
      'spec.rules[0].match.any[0].resources.kinds',
      'wildcard policy not allowed in background mode',
    );
    const spec2 = check([...wildcard, '  validate:', '    message: m', '    pattern:', '      spec: {}']);
    expectOneError(spec2, 'spec.rules[0].match.any[0].resources.kinds', 'policy can only deal with the metadata field');
    const gen = check([
      ...wildcard,
      '  generate:',
      '    apiVersion: v1',
      '    kind: ConfigMap',
      '    name: c',
      '    namespace: n',
      '    data: {}',
    ]);
    expectOneError(gen, 'spec.rules[0].match.any[0].resources.kinds', 'wildcard policy does not support rule type');
  });

  it('namespaced policies may not match cluster-wide kinds or filter namespaces', () => {
    const policy = policyFromYaml(
      spec(['  match:', '    any:', '    - resources:', '        kinds: [Namespace]', ...VALIDATE]),
      { kind: 'Policy' },
    );
    expectOneError(
      validatePolicy(policy),
      'spec.rules[0].match.any[0].resources.kinds[0]',
      "Cluster wide resource 'Namespace' not allowed in namespaced policy",
    );
    const ns = policyFromYaml(
      spec([
        '  match:',
        '    any:',
        '    - resources:',
        '        kinds: [Pod]',
        '        namespaces: [a]',
        ...VALIDATE,
      ]),
      { kind: 'Policy' },
    );
    expectOneError(
      validatePolicy(ns),
      'spec.rules[0].match.any[0].resources.namespaces',
      'Filtering namespaces not allowed in namespaced policies',
    );
  });

  it('compares scope by group, version and kind: a CRD of another group named Pod leaves core Pod namespaced', () => {
    const selecting = (kind: string, clusterScopedKinds: string[]) =>
      validatePolicy(
        policyFromYaml(spec(['  match:', '    any:', '    - resources:', `        kinds: ['${kind}']`, ...VALIDATE]), {
          kind: 'Policy',
        }),
        { clusterScopedKinds },
      );
    // What the CRD feed gives for a cluster-scoped `example.com` Pod: its name and its group/version/Kind.
    const podCrd = ['Pod', 'example.com/v1/Pod'];
    for (const kind of ['Pod', 'v1/Pod', 'Pod/status', 'Pod.ephemeralcontainers'])
      expectNoErrors(selecting(kind, podCrd));
    expectOneError(
      selecting('example.com/v1/Pod', podCrd),
      'spec.rules[0].match.any[0].resources.kinds[0]',
      "Cluster wide resource 'example.com/v1/Pod' not allowed in namespaced policy",
    );
    expectNoErrors(selecting('other.io/v1/Pod', podCrd));
    // A built-in cluster-scoped kind stays so however it is written; another group's kind of that name is not.
    for (const kind of ['Namespace', 'v1/Namespace', 'rbac.authorization.k8s.io/v1/ClusterRole']) {
      expect(errors(selecting(kind, []))).toHaveLength(1);
    }
    expectNoErrors(selecting('example.com/v1/Namespace', ['example.com/v1/Widget']));
    // Custom kinds: by group when the caller knows it, by name when it knows only names (cleanup's discovery).
    expect(errors(selecting('Widget', ['example.com/v1/Widget']))).toHaveLength(1);
    expect(errors(selecting('example.com/*/Widget', ['example.com/v1/Widget']))).toHaveLength(1);
    expectNoErrors(selecting('other.io/v1/Widget', ['example.com/v1/Widget']));
    expect(errors(selecting('example.com/v1/Widget', ['Widget']))).toHaveLength(1);
  });

  it('a background validate rule selects no subresource when validated against a cluster', () => {
    const selecting = (kinds: string, head = ['background: true']) =>
      check(['  match:', '    any:', '    - resources:', `        kinds: [${kinds}]`, ...VALIDATE], head, {
        againstCluster: true,
      });
    for (const kind of ['Scale', 'Pod/scale', 'Pod/*', "'*/*'", "'*/status'", 'autoscaling/v1/Scale']) {
      expectOneError(
        selecting(kind),
        'spec.rules[0].match.any[0].resources.kinds',
        `the kind defined in the all match resource is invalid: background scan enabled with subresource ${kind.replace(/'/g, '')}`,
      );
    }
    expectNoErrors(selecting('Deployment'));
    expectNoErrors(selecting('Scale', ['background: false']));
    // Kyverno's CLI does not look kinds up.
    expectNoErrors(
      check(
        ['  match:', '    any:', '    - resources:', '        kinds: [Pod/exec]', ...VALIDATE],
        ['background: true'],
      ),
    );
  });
});

describe('validatePolicy: variables', () => {
  it('match and exclude may not hold variables', () => {
    const ds = check([
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '        names: ["{{request.object.metadata.name}}"]',
      ...VALIDATE,
    ]);
    expectOneError(
      ds,
      'spec.rules[0].match',
      'policy contains invalid variables: rule "r" should not have variables in match section',
    );
  });

  it('variables must be built-in roots or context entries', () => {
    const bad = check([
      ...MATCH_POD,
      '  validate:',
      '    message: "{{ foo.bar }}"',
      '    pattern:',
      '      metadata:',
      '        name: "?*"',
    ]);
    expectOneError(
      bad,
      'spec.rules[0].validate.message',
      'policy contains invalid variables: variable substitution failed for rule r: variable foo.bar must match regex',
    );
    const withContext = check([
      '  context:',
      '  - name: foo',
      '    variable:',
      '      value: 1',
      ...MATCH_POD,
      '  validate:',
      '    message: "{{ foo.bar }} {{ request.object.kind }} {{ to_upper(\'a\') }}"',
      '    pattern:',
      '      metadata:',
      '        name: "?*"',
    ]);
    expectNoErrors(withContext);
  });

  it('configMap entries allow only .data and .metadata', () => {
    const lines = (v: string) => [
      '  context:',
      '  - name: cm',
      '    configMap:',
      '      name: c',
      '      namespace: n',
      ...MATCH_POD,
      '  validate:',
      `    message: "{{ ${v} }}"`,
      ...VALIDATE.slice(2),
    ];
    expectNoErrors(check(lines('cm.data.key')));
    expectOneError(check(lines('cm.spec')), 'spec.rules[0].validate.message', 'variable cm.spec must match regex');
  });

  it('variables must be valid JMESPath', () => {
    const ds = check([...MATCH_POD, '  validate:', '    message: "{{ request.object.[ }}"', ...VALIDATE.slice(2)]);
    expectOneError(
      ds,
      'spec.rules[0].validate.message',
      'failed to resolve request.object.[ at path /validate/message: invalid JMESPath query',
    );
  });

  it('background mode forbids user-dependent variables and user info in match', () => {
    const lines = [...MATCH_POD, '  validate:', '    message: "{{ request.userInfo.username }}"', ...VALIDATE.slice(2)];
    expectOneError(
      check(lines, ['background: true']),
      'spec.rules[0].validate.message',
      'only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable {{ request.userInfo.username }} is not allowed',
    );
    expectNoErrors(check(lines, ['background: false']));
    const subjects = [
      '  match:',
      '    any:',
      '    - resources:',
      '        kinds: [Pod]',
      '      subjects:',
      '      - kind: User',
      '        name: u',
      ...VALIDATE,
    ];
    expectOneError(
      check(subjects, []),
      'spec.rules[0].match.any[0].subjects',
      'invalid variable used at path: spec/rules[0]/match/any[0]/subjects',
    );
  });

  it('element variables only inside foreach', () => {
    const ds = check([
      ...MATCH_POD,
      '  validate:',
      '    message: "{{ element.name }}"',
      '    foreach:',
      '    - list: request.object.spec.containers',
      '      deny: {}',
    ]);
    expectOneError(
      ds,
      'spec.rules[0].validate.message',
      "variable 'element.name' present outside of foreach at path /validate/message",
    );
    expectNoErrors(
      check([
        ...MATCH_POD,
        '  validate:',
        '    message: m',
        '    foreach:',
        '    - list: request.object.spec.containers',
        '      pattern:',
        '        name: "{{ element.name }}"',
      ]),
    );
  });

  it('target variables only in rules that mutate existing resources', () => {
    const targets = [
      '  mutate:',
      '    targets:',
      '    - apiVersion: v1',
      '      kind: ConfigMap',
      '    patchStrategicMerge:',
      '      metadata:',
      '        labels:',
      '          a: "{{ target.metadata.name }}"',
    ];
    expectNoErrors(check([...MATCH_POD, ...targets]));
    const plain = [
      '  mutate:',
      '    patchStrategicMerge:',
      '      metadata:',
      '        labels:',
      '          a: "{{ target.metadata.name }}"',
    ];
    expectOneError(
      check([...MATCH_POD, ...plain]),
      'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.a',
      'variable target.metadata.name must match regex',
    );
  });

  it("a target's own preconditions may read target.*, its resource fields may not", () => {
    const target = (field: string) => [
      '  mutate:',
      '    targets:',
      '    - apiVersion: v1',
      '      kind: ConfigMap',
      ...field.split('\n'),
      '    patchStrategicMerge:',
      '      metadata:',
      '        labels:',
      '          a: b',
    ];
    const precondition = [
      '      namespace: "{{ request.object.metadata.namespace }}"',
      '      preconditions:',
      '        all:',
      '        - key: "{{ target.metadata.labels.foo || \'\' }}"',
      '          operator: Equals',
      '          value: bar',
    ].join('\n');
    expectNoErrors(check([...MATCH_POD, ...target(precondition)]));
    expectOneError(
      check([...MATCH_POD, ...target('      name: "{{ target.metadata.name }}"')]),
      'spec.rules[0].mutate.targets[0].name',
      'invalid variables defined at mutate.targets[0]: variable target.metadata.name must match regex',
    );
  });
});

describe('validatePolicy: context entries', () => {
  const entry = (lines: string[]) => check(['  context:', ...lines, ...MATCH_POD, ...VALIDATE]);

  it('names may not shadow built-in variables', () => {
    expectOneError(
      entry(['  - name: request', '    variable:', '      value: 1']),
      'spec.rules[0].context[0].name',
      'entry name request is invalid as it conflicts with a pre-defined variable request',
    );
    expectOneError(
      entry(['  - name: images.x', '    variable:', '      value: 1']),
      'spec.rules[0].context[0].name',
      'conflicts with a pre-defined variable images',
    );
    expectNoErrors(entry(['  - name: requests', '    variable:', '      value: 1']));
  });

  it('a redefined entry is a warning', () => {
    const ds = entry([
      '  - name: a',
      '    variable:',
      '      value: 1',
      '  - name: a',
      '    variable:',
      '      value: 2',
    ]);
    expectNoErrors(ds);
    expect(warnings(ds).map((d) => d.path)).toEqual(['spec.rules[0].context[1].name']);
  });

  it('each source is complete and its JMESPath parses', () => {
    expectOneError(
      entry(['  - name: a', '    variable:', '      default: 1']),
      'spec.rules[0].context[0].variable',
      'a variable must define a value or a jmesPath expression',
    );
    expectOneError(
      entry(['  - name: a', '    variable:', '      value: 1', '      default: 2']),
      'spec.rules[0].context[0].variable',
      'a variable must define a default value only when a jmesPath expression is defined',
    );
    expectOneError(
      entry(['  - name: a', '    variable:', '      jmesPath: "foo.["']),
      'spec.rules[0].context[0].variable.jmesPath',
      'failed to parse JMESPath foo.[',
    );
    expectOneError(
      entry(['  - name: a', '    configMap:', '      name: c']),
      'spec.rules[0].context[0].configMap',
      'a namespace is required for configMap context entry',
    );
    expectOneError(
      entry(['  - name: a', '    apiCall:', '      urlPath: /api/v1', '      service:', '        url: https://x']),
      'spec.rules[0].context[0].apiCall',
      'a URLPath cannot be used for service API calls',
    );
    expectNoErrors(
      entry([
        '  - name: a',
        '    apiCall:',
        '      urlPath: /api/v1/namespaces',
        '      jmesPath: "items[].metadata.name | length(@)"',
      ]),
    );
  });
});

describe('validatePolicy: conditions', () => {
  it('operators must be known', () => {
    const ds = check([
      '  preconditions:',
      '    all:',
      '    - key: a',
      '      operator: Matches',
      '      value: b',
      ...MATCH_POD,
      ...VALIDATE,
    ]);
    expectOneError(
      ds,
      'spec.rules[0].preconditions.all[0].operator',
      'entered value of `operator` is invalid. valid values: [',
    );
    expect(errors(ds)[0]!.message).toContain('"AnyIn" "AllIn"');
  });

  it('request.operation values must be admission operations', () => {
    const ds = check([
      '  preconditions:',
      '    any:',
      '    - key: "{{ request.operation }}"',
      '      operator: Equals',
      '      value: CREATED',
      ...MATCH_POD,
      ...VALIDATE,
    ]);
    expectOneError(
      ds,
      'spec.rules[0].preconditions.any[0].value',
      "unknown value 'CREATED' found under the 'value' field",
    );
    expectNoErrors(
      check([
        '  preconditions:',
        '    any:',
        '    - key: "{{request.operation}}"',
        '      operator: AnyIn',
        '      value: [CREATE, UPDATE]',
        ...MATCH_POD,
        ...VALIDATE,
      ]),
    );
  });

  it('deprecated operators in deny conditions are warnings', () => {
    const ds = check([
      ...MATCH_POD,
      '  validate:',
      '    message: m',
      '    deny:',
      '      conditions:',
      '        any:',
      '        - key: a',
      '          operator: In',
      '          value: [a]',
    ]);
    expectNoErrors(ds);
    expect(warnings(ds).map((d) => d.message)).toEqual([
      'Operator In has been deprecated and will be removed soon. Use these instead: ["AllIn" "AnyIn"]',
    ]);
  });
});

describe('validatePolicy: validate rules', () => {
  it('one validation kind only', () => {
    const ds = check([...MATCH_POD, '  validate:', '    message: m', '    pattern: {}', '    deny: {}']);
    expectOneError(
      ds,
      'spec.rules[0].validate',
      'only one of pattern, anyPattern, deny, foreach, cel can be specified',
    );
  });

  it('manifests count as a validation kind only with attestors', () => {
    expectOneError(
      check([...MATCH_POD, '  validate:', '    message: m', '    manifests: {attestors: []}']),
      'spec.rules[0].validate',
      'one of pattern, anyPattern, deny, foreach, cel must be specified',
    );
  });

  it('pattern anchors are supported and existence anchors hold a non-empty list', () => {
    const add = check([
      ...MATCH_POD,
      '  validate:',
      '    message: m',
      '    pattern:',
      '      metadata:',
      '        +(name): x',
    ]);
    expectOneError(add, 'spec.rules[0].validate.pattern.metadata["+(name)"]', 'unsupported anchor +(name)');
    const existence = check([
      ...MATCH_POD,
      '  validate:',
      '    message: m',
      '    pattern:',
      '      spec:',
      '        ^(containers):',
      '          name: x',
    ]);
    expectOneError(
      existence,
      'spec.rules[0].validate.pattern.spec["^(containers)"]',
      'existence anchor should have value of type list',
    );
    expectNoErrors(
      check([
        ...MATCH_POD,
        '  validate:',
        '    message: m',
        '    pattern:',
        '      spec:',
        '        =(hostNetwork): false',
        '        ^(containers):',
        '        - name: x',
      ]),
    );
  });

  it('labels in patterns must be strings', () => {
    const ds = check([
      ...MATCH_POD,
      '  validate:',
      '    message: m',
      '    pattern:',
      '      metadata:',
      '        labels:',
      '          n: 1',
    ]);
    expectOneError(ds, 'spec.rules[0].validate', 'labels and annotations supports only string values');
  });

  it('foreach entries have exactly one of pattern, anyPattern, deny, foreach', () => {
    const ds = check([
      ...MATCH_POD,
      '  validate:',
      '    message: m',
      '    foreach:',
      '    - list: request.object.spec.containers',
    ]);
    expectOneError(
      ds,
      'spec.rules[0].validate.foreach[0]',
      'one of pattern, anyPattern, deny, or a nested foreach must be specified',
    );
  });

  it('foreach entries name a list', () => {
    const ds = check([...MATCH_POD, '  validate:', '    message: m', '    foreach:', '    - deny: {}']);
    expectOneError(ds, 'spec.rules[0].validate.foreach[0].list', 'foreach.list is required');
  });

  it('podSecurity exclusions fit the level and the control scope', () => {
    const pss = (level: string, exclude: string[]) =>
      check([...MATCH_POD, '  validate:', '    podSecurity:', `      level: ${level}`, '      exclude:', ...exclude]);
    expectOneError(
      pss('baseline', ['      - controlName: Running as Non-root']),
      'spec.rules[0].podSecurity.exclude[0].controlName',
      'Invalid control name defined at the given level',
    );
    expectNoErrors(pss('baseline', ['      - controlName: Seccomp', '        images: ["*"]']));
    expectOneError(
      pss('restricted', ['      - controlName: Capabilities']),
      'spec.rules[0].podSecurity.exclude[0].controlName',
      'exclude.images must be specified for the container level control',
    );
    expectOneError(
      pss('restricted', ['      - controlName: Host Namespaces', '        images: ["*"]']),
      'spec.rules[0].podSecurity.exclude[0].controlName',
      'exclude.images must not be specified for the pod level control',
    );
  });

  it('podSecurity exclusions name restrictedField and values together', () => {
    const exclude = (fields: string[]) =>
      check([
        ...MATCH_POD,
        '  validate:',
        '    podSecurity:',
        '      level: baseline',
        '      exclude:',
        '      - controlName: /proc Mount Type',
        '        images: [nginx]',
        ...fields.map((f) => `        ${f}`),
      ]);
    expectOneError(
      exclude(['restrictedField: spec.containers[*].securityContext.procMount']),
      'spec.rules[0].podSecurity.exclude[0].values',
      'values is required',
    );
    expectOneError(
      exclude(['values: [bar]']),
      'spec.rules[0].podSecurity.exclude[0].restrictedField',
      'restrictedField is required',
    );
    expectNoErrors(exclude(['restrictedField: spec.containers[*].securityContext.procMount', 'values: [Unmasked]']));
  });
});

describe('validatePolicy: mutate rules', () => {
  it('patchesJson6902 paths begin with a slash and hold no variables', () => {
    const patch = (p: string) =>
      check([
        ...MATCH_POD,
        '  mutate:',
        '    patchesJson6902: |-',
        '      - op: add',
        `        path: ${p}`,
        '        value: x',
      ]);
    expectOneError(
      patch('metadata/labels/a'),
      'spec.rules[0].mutate.patchesJson6902',
      'path must begin with a forward slash: spec.rules[0]: metadata/labels/a',
    );
    expectOneError(
      patch('"/metadata/labels/{{request.object.kind}}"'),
      'spec.rules[0].mutate.patchesJson6902',
      'should not have variables in patchesJSON6902 path section',
    );
    expectNoErrors(patch('/metadata/labels/a'));
    const legacyPod = check([
      '  match:',
      '    resources:',
      '      kinds: [Pod]',
      '  mutate:',
      '    patchesJson6902: |-',
      '      - op: add',
      '        path: /metadata/labels/a',
      '        value: x',
    ]);
    expectNoErrors(legacyPod);
    expect(warnings(legacyPod).map((d) => d.message)[0]).toContain(
      'Pods managed by workload controllers should not be directly mutated',
    );
  });

  it('foreach excludes top-level patches', () => {
    const ds = check([
      ...MATCH_POD,
      '  mutate:',
      '    patchStrategicMerge:',
      '      metadata: {}',
      '    foreach:',
      '    - list: request.object.spec.containers',
      '      patchStrategicMerge: {}',
    ]);
    expectOneError(
      ds,
      'spec.rules[0].mutate.foreach',
      'only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed',
    );
  });

  it('foreach entries hold one patch, or a nested foreach and nothing else', () => {
    const entry = (lines: string[]) =>
      check([...MATCH_POD, '  mutate:', '    foreach:', '    - list: request.object.spec.containers', ...lines]);
    expectOneError(
      entry([]),
      'spec.rules[0].mutate.foreach[0]',
      'only one of `patchStrategicMerge` or `patchesJson6902` is allowed',
    );
    expectOneError(
      entry([
        '      preconditions: {all: [{key: a, operator: Equals, value: a}]}',
        '      foreach:',
        '      - list: element.ports',
        '        patchStrategicMerge: {}',
      ]),
      'spec.rules[0].mutate.foreach[0]',
      'a nested foreach cannot contain other declarations',
    );
    expectNoErrors(entry(['      foreach:', '      - list: element.ports', '        patchStrategicMerge: {}']));
  });

  it('celPreconditions are refused beside a mutate rule', () => {
    expectOneError(
      check([
        '  celPreconditions:',
        '  - name: p',
        '    expression: "true"',
        ...MATCH_POD,
        '  mutate:',
        '    patchStrategicMerge:',
        '      metadata: {}',
      ]),
      'spec.rules[0].celPreconditions',
      'celPrecondition can only be used with validate.cel',
    );
  });

  it('a JSON patch test operation needs a value', () => {
    const patch = (op: string) =>
      check([
        ...MATCH_POD,
        '  mutate:',
        '    patchesJson6902: |-',
        `      - op: ${op}`,
        '        path: /metadata/name',
      ]);
    expectOneError(
      patch('test'),
      'spec.rules[0].mutate.patchesJson6902',
      'invalid value: spec.rules[0]: operation, missing value field: missing value',
    );
    expectNoErrors(patch('remove'));
  });

  it('mutateExistingOnPolicyUpdate needs targets; namespaced targets stay in the namespace', () => {
    const ds = check([
      ...MATCH_POD,
      '  mutate:',
      '    mutateExistingOnPolicyUpdate: true',
      '    patchStrategicMerge:',
      '      metadata: {}',
    ]);
    expectOneError(
      ds,
      'spec.mutateExistingOnPolicyUpdate',
      'rules[0].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set',
    );
    const ns = validatePolicy(
      policyFromYaml(
        spec([
          ...MATCH_POD,
          '  mutate:',
          '    targets:',
          '    - apiVersion: v1',
          '      kind: ConfigMap',
          '      namespace: other',
          '    patchStrategicMerge:',
          '      metadata: {}',
        ]),
        {
          kind: 'Policy',
          metadata: '  name: p\n  namespace: team',
        },
      ),
    );
    expectOneError(
      ns,
      'spec.rules[0].mutate.targets[0].namespace',
      'This field can be ignored or should have value of the namespace where the policy is being created',
    );
  });

  it('mutateExistingOnPolicyUpdate may be set on the policy and on a rule at once (the rule wins)', () => {
    const targets = [
      '    targets:',
      '    - apiVersion: v1',
      '      kind: ConfigMap',
      '      name: c',
      '      namespace: n',
    ];
    const ds = check(
      [...MATCH_POD, '  mutate:', '    mutateExistingOnPolicyUpdate: false', ...targets, '    patchStrategicMerge: {}'],
      ['background: false', 'mutateExistingOnPolicyUpdate: true'],
    );
    expectNoErrors(ds);
  });
});

describe('validatePolicy: generate rules', () => {
  const gen = (lines: string[], options: { kind?: 'Policy' } = {}) =>
    validatePolicy(
      policyFromYaml(spec([...MATCH_POD, '  generate:', ...lines]), {
        kind: options.kind,
        metadata: '  name: p\n  namespace: team',
      }),
    );

  it('kind, name and apiVersion are required', () => {
    const ds = gen(['    namespace: n', '    data: {}']);
    expect(errors(ds).map((d) => `${d.path}: ${d.message}`)).toEqual([
      'spec.rules[0].generate.kind: kind can not be empty',
      'spec.rules[0].generate.name: name can not be empty',
      'spec.rules[0].generate.apiVersion: apiVersion can not be empty',
    ]);
  });

  it('the target namespace follows the kind scope', () => {
    expectOneError(
      gen(['    apiVersion: v1', '    kind: ConfigMap', '    name: c', '    data: {}']),
      'spec.rules[0].generate.namespace',
      'target namespace must be set for a namespaced resource',
    );
    expectOneError(
      gen(['    apiVersion: v1', '    kind: Namespace', '    name: c', '    namespace: x', '    data: {}']),
      'spec.rules[0].generate.namespace',
      'target namespace must not be set for a cluster-wide resource',
    );
    expectNoErrors(gen(['    apiVersion: v1', '    kind: Namespace', '    name: c', '    data: {}']));
  });

  it('looks a custom target up by apiVersion and kind, as kinds of different groups share names', () => {
    const role = (apiVersion: string) =>
      validatePolicy(
        policyFromYaml(
          spec([
            ...MATCH_POD,
            '  generate:',
            `    apiVersion: ${apiVersion}`,
            '    kind: Role',
            '    name: r',
            '    data: {}',
          ]),
        ),
        { clusterScopedKinds: ['Role', 'iam.aws.crossplane.io/v1beta1/Role'] },
      );
    expectNoErrors(role('iam.aws.crossplane.io/v1beta1'));
    expectOneError(
      role('rbac.authorization.k8s.io/v1'),
      'spec.rules[0].generate.namespace',
      'target namespace must be set for a namespaced resource',
    );
  });

  it('data and clone are exclusive; variables in the clone source are only warned about; data holds no anchors', () => {
    const both = gen([
      '    apiVersion: v1',
      '    kind: ConfigMap',
      '    name: c',
      '    namespace: n',
      '    data: {}',
      '    clone:',
      '      name: a',
      '      namespace: b',
    ]);
    expectOneError(
      both,
      'spec.rules[0].generate',
      'only one of generate patterns(data, clone, cloneList and foreach) can be specified',
    );
    const vars = gen([
      '    apiVersion: v1',
      '    kind: "{{request.object.kind}}"',
      '    name: c',
      '    namespace: n',
      '    clone:',
      '      name: a',
      '      namespace: b',
    ]);
    expectNoErrors(vars);
    expect(warnings(vars)).toMatchObject([
      {
        path: 'spec.rules[0].generate["clone/cloneList"]',
        message: 'variables in spec.rules[0].generate.clone/cloneList would lead to incorrect synchronization behavior',
      },
    ]);
    const anchors = gen([
      '    apiVersion: v1',
      '    kind: ConfigMap',
      '    name: c',
      '    namespace: n',
      '    data:',
      '      (x): y',
    ]);
    expectOneError(
      anchors,
      'spec.rules[0].generate.data["(x)"]',
      'anchors not supported on generate resources: unsupported anchor (x)',
    );
  });

  it('a namespaced policy generates and clones only in its own namespace', () => {
    const other = gen(
      ['    apiVersion: v1', '    kind: ConfigMap', '    name: c', '    namespace: other', '    data: {}'],
      { kind: 'Policy' },
    );
    expectOneError(
      other,
      'spec.rules[0].generate.namespace',
      'target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: team, received: other',
    );
    const clone = gen(
      [
        '    apiVersion: v1',
        '    kind: ConfigMap',
        '    name: c',
        '    namespace: team',
        '    clone:',
        '      name: a',
        '      namespace: default',
      ],
      { kind: 'Policy' },
    );
    expectOneError(
      clone,
      'spec.rules[0].generate.namespace',
      'a namespaced policy cannot clone resources from other namespaces, expected: team, received: default',
    );
    expectNoErrors(
      gen(['    apiVersion: v1', '    kind: ConfigMap', '    name: c', '    namespace: team', '    data: {}'], {
        kind: 'Policy',
      }),
    );
  });

  it('cloneList needs a namespace for namespaced kinds and one scope', () => {
    expectOneError(
      gen(['    namespace: n', '    cloneList:', '      kinds: [v1/Secret]']),
      'spec.rules[0].generate.cloneList.namespace',
      'namespace is required for namespaced target resources',
    );
    expectOneError(
      gen([
        '    namespace: n',
        '    cloneList:',
        '      namespace: a',
        '      kinds: [v1/Secret, rbac.authorization.k8s.io/v1/ClusterRole]',
      ]),
      'spec.rules[0].generate.cloneList.kinds',
      'mixed scope of target resources is forbidden',
    );
  });
});

describe('validatePolicy: policy-wide settings', () => {
  it('webhook timeouts are 1..30 seconds', () => {
    expectOneError(
      check([...MATCH_POD, ...VALIDATE], ['background: false', 'webhookTimeoutSeconds: 31']),
      'spec.webhookTimeoutSeconds',
      'the timeout value must be between 1 and 30 seconds',
    );
    expectNoErrors(check([...MATCH_POD, ...VALIDATE], ['background: false', 'webhookTimeoutSeconds: 30']));
  });

  it('webhook matchConditions compile as booleans over object, oldObject and request', () => {
    const conditions = (...expressions: string[]) =>
      check(
        [...MATCH_POD, ...VALIDATE],
        [
          'background: false',
          'webhookConfiguration:',
          '  matchConditions:',
          ...expressions.flatMap((e, i) => [`  - name: c${i}`, `    expression: ${JSON.stringify(e)}`]),
        ],
      );
    expectNoErrors(conditions("request.object.metadata.name != 'x'", 'has(object.spec)'));
    for (const wrong of ['object.metadata.name +', "authorizer.group('').resource('pods').check('get').allowed()"]) {
      expectOneError(
        conditions('true', wrong),
        'spec.webhookConfiguration.matchConditions[1].expression',
        'match conditions compilation errors: [',
      );
    }
  });

  it('the deprecated generateExistingOnPolicyUpdate is refused whatever its value', () => {
    for (const value of ['true', 'false']) {
      expectOneError(
        check([...MATCH_POD, ...VALIDATE], ['background: false', `generateExistingOnPolicyUpdate: ${value}`]),
        'spec.generateExistingOnPolicyUpdate',
        'remove the deprecated field and use spec.generate[*].generateExisting instead',
      );
    }
  });

  it('lower-case failure actions are deprecated (warning)', () => {
    const ds = check([...MATCH_POD, ...VALIDATE], ['background: false', 'validationFailureAction: enforce']);
    expectNoErrors(ds);
    expect(warnings(ds).map((d) => d.message)).toEqual([
      'Validation failure actions enforce/audit are deprecated, use Enforce/Audit instead.',
    ]);
  });

  it('failure action overrides may not both enforce and audit a namespace', () => {
    const head = [
      'background: false',
      'validationFailureActionOverrides:',
      '- action: Enforce',
      '  namespaces: [a, b]',
      '- action: Audit',
      '  namespaces: [b]',
    ];
    expectOneError(
      check([...MATCH_POD, ...VALIDATE], head),
      'spec.validationFailureActionOverrides[1].namespaces',
      'conflicting namespaces found in path: spec.validationFailureActionOverrides[1].namespaces: b',
    );
    const wild = [
      'background: false',
      'validationFailureActionOverrides:',
      '- action: Enforce',
      '  namespaces: [prod-*]',
      '- action: Audit',
      '  namespaces: [prod-1]',
    ];
    expectOneError(
      check([...MATCH_POD, ...VALIDATE], wild),
      'spec.validationFailureActionOverrides[1].namespaces',
      "wildcard pattern 'prod-*' matches with namespace 'prod-1'",
    );
  });

  it('admission and background cannot both be off; no admission means validate only', () => {
    expectOneError(
      check([...MATCH_POD, ...VALIDATE], ['background: false', 'admission: false']),
      'spec.admission',
      'disabling both admission and background processing is not allowed',
    );
    const mutate = check(
      [...MATCH_POD, '  mutate:', '    patchStrategicMerge:', '      metadata: {}'],
      ['background: true', 'admission: false'],
    );
    expectOneError(mutate, 'spec.admission', 'disabling admission processing is only allowed with validation policies');
  });

  it('diagnostics name the object and the file', () => {
    const [d] = validatePolicy(policyFromYaml(spec([...MATCH_POD])), { file: 'p.yaml' });
    expect(d).toMatchObject({ file: 'p.yaml', object: 'ClusterPolicy/p', path: 'spec.rules[0]' });
  });
});

describe('validatePolicy: fields of the wrong type', () => {
  // Edict's CRDs leave spec open, so the webhook and the cache can be handed anything.
  it('names each field of the wrong type instead of throwing', () => {
    const policy = policyFromYaml(
      [
        'validationFailureActionOverrides: Enforce',
        'rules:',
        '- name: r',
        '  match:',
        '    any: Pod',
        '    roles: [1]',
        '  validate:',
        '    deny: {conditions: {any: [{key: a, operator: Equals, value: b}], all: "x"}}',
      ].join('\n'),
    );
    const ds = validatePolicy(policy);
    expect(errors(ds).map((d) => `${d.path}: ${d.message}`)).toEqual([
      'spec.validationFailureActionOverrides: expected array, got string "Enforce"',
      'spec.rules[0].match.any: expected array, got string "Pod"',
      'spec.rules[0].match.roles[0]: expected string, got number 1',
      'spec.rules[0].validate.deny.conditions.all: expected array, got string "x"',
    ]);
  });
});

describe('validatePolicy: fields of the wrong type in a v2beta1 policy', () => {
  it('checks the legacy match fields the checks still read', () => {
    const policy = policyFromYaml(
      ['rules:', '- name: r', '  match:', '    subjects: 0', '  validate:', '    pattern: {a: b}'].join('\n'),
    );
    policy.apiVersion = 'kyverno.io/v2beta1';
    expect(errors(validatePolicy(policy)).map((d) => `${d.path}: ${d.message}`)).toEqual([
      'spec.rules[0].match.subjects: expected array, got number 0',
    ]);
  });
});

describe('validatePolicy: null list entries', () => {
  it('reports a null rule, foreach or condition entry with its path instead of throwing', () => {
    const policy = policyFromYaml(
      [
        'rules:',
        '- name: r',
        '  match: {any: [{resources: {kinds: [Pod]}}]}',
        '  validate:',
        '    foreach: [null]',
        '  preconditions: {all: [null]}',
        '- null',
      ].join('\n'),
    );
    expect(errors(validatePolicy(policy)).map((d) => `${d.path}: ${d.message}`)).toEqual([
      'spec.rules[0].validate.foreach[0]: expected object, got null',
      'spec.rules[0].preconditions.all[0]: expected object, got null',
      'spec.rules[1]: expected object, got null',
    ]);
  });
});

describe('validatePolicy: kind and name of the wrong type', () => {
  it('reports them instead of failing to name the policy', () => {
    const policy = JSON.parse(
      '{"apiVersion":"kyverno.io/v1","kind":[{"toString":""}],"metadata":{"name":{"toString":1}},"spec":{"rules":[]}}',
    ) as Policy;
    expect(validatePolicy(policy).map((d) => `${d.object} ${d.path}: ${d.message}`)).toEqual([
      'ClusterPolicy kind: expected string, got array',
      'ClusterPolicy metadata.name: expected string, got object',
    ]);
  });
});

describe('validatePolicy: validate.cel', () => {
  const cel = (...lines: string[]) => [...MATCH_POD, '  validate:', '    cel:', ...lines.map((l) => `      ${l}`)];
  const messages = (ds: ReturnType<typeof check>) => errors(ds).map((d) => `${d.path}: ${d.message}`);

  it('accepts expressions with parameters given by kind and reference', () => {
    expectNoErrors(
      check(
        cel(
          'paramKind: {apiVersion: rules.example.com/v1, kind: Limit}',
          'paramRef: {name: limit, parameterNotFoundAction: Deny}',
          'expressions:',
          '- expression: object.spec.replicas <= params.max',
        ),
      ),
    );
  });

  it('refuses what Kyverno refuses: an empty expression, a half-given parameter, an incomplete paramRef', () => {
    expect(messages(check(cel('expressions:', '- expression: ""')))).toEqual([
      'spec.rules[0].validate.cel.expressions[0]: cel.expressions.expression is required',
    ]);
    expect(messages(check(cel('paramKind: {kind: Limit}', 'expressions: [{expression: "true"}]')))).toEqual([
      'spec.rules[0].validate.cel.paramKind: cel.paramKind.apiVersion is required',
      'spec.rules[0].validate.cel: cel.paramRef is required',
    ]);
    expect(messages(check(cel('paramRef: {name: a, selector: {}}', 'expressions: [{expression: "true"}]')))).toEqual([
      'spec.rules[0].validate.cel.paramRef: one of cel.paramRef.name or cel.paramRef.selector must be set',
      'spec.rules[0].validate.cel.paramRef: cel.paramRef.parameterNotFoundAction is required',
      'spec.rules[0].validate.cel: cel.paramKind is required',
    ]);
  });

  it('allows celPreconditions only beside validate.cel', () => {
    const precondition = ['  celPreconditions:', '  - name: p', '    expression: "true"'];
    expectOneError(
      check([...precondition, ...MATCH_POD, ...VALIDATE]),
      'spec.rules[0].celPreconditions',
      'celPrecondition can only be used with validate.cel',
    );
    expectNoErrors(check([...precondition, ...cel('expressions: [{expression: "true"}]')]));
  });
});
