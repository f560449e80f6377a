import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  AUTOGEN_CONTROLLERS_ANNOTATION,
  autogenRules,
  autogenStatus,
  effectiveControllers,
  withAutogen,
} from './autogen';
import type { Policy, Rule } from './types';

const CONTROLLER_KINDS = [
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'batch/v1/Job',
  'apps/v1/ReplicaSet',
  'v1/ReplicationController',
  'apps/v1/StatefulSet',
];

function policy(rules: unknown[], annotations?: Record<string, string>): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
    spec: { rules: rules as Rule[] },
  };
}

const podMatch = { any: [{ resources: { kinds: ['Pod'] } }] };

function validateRule(name = 'check', extra: JsonObject = {}): JsonObject {
  return {
    name,
    match: podMatch,
    validate: { message: 'no', pattern: { spec: { containers: [{ image: '!*:latest' }] } } },
    ...extra,
  };
}

function names(p: Policy): string[] {
  return autogenRules(p).map((r) => r.name);
}

describe('autogen: which rules are generated', () => {
  it('adds autogen-X for the template controllers and autogen-cronjob-X for CronJob', () => {
    const rules = autogenRules(policy([validateRule()]));
    expect(rules.map((r) => r.name)).toEqual(['autogen-check', 'autogen-cronjob-check']);
    expect(rules[0].match).toEqual({ any: [{ resources: { kinds: CONTROLLER_KINDS } }] });
    expect(rules[1].match).toEqual({ any: [{ resources: { kinds: ['batch/v1/CronJob'] } }] });
  });

  it('moves patterns under the pod template, keeping message and failure settings', () => {
    const rule = validateRule('check', {});
    (rule.validate as JsonObject).failureAction = 'Enforce';
    (rule.validate as JsonObject).allowExistingViolations = false;
    const [deploy, cron] = autogenRules(policy([rule]));
    const pattern = { containers: [{ image: '!*:latest' }] };
    expect(deploy.validate).toEqual({
      message: 'no',
      failureAction: 'Enforce',
      allowExistingViolations: false,
      pattern: { spec: { template: { spec: pattern } } },
    });
    expect(cron.validate?.pattern).toEqual({ spec: { jobTemplate: { spec: { template: { spec: pattern } } } } });
  });

  it('orders own rules first, then each rule followed by its cronjob rule', () => {
    const p = policy([validateRule('a'), validateRule('b')]);
    expect(withAutogen(p).spec.rules.map((r) => r.name)).toEqual([
      'a',
      'b',
      'autogen-a',
      'autogen-cronjob-a',
      'autogen-b',
      'autogen-cronjob-b',
    ]);
  });

  it('does not modify the input and caches per policy object', () => {
    const p = policy([validateRule()]);
    const before = JSON.stringify(p);
    const a = withAutogen(p);
    expect(withAutogen(p)).toBe(a);
    expect(JSON.stringify(p)).toBe(before);
  });

  it('replaces stale autogen rules written in the policy, but keeps them when nothing is generated', () => {
    const stale = { ...validateRule('autogen-old') };
    expect(withAutogen(policy([validateRule(), stale])).spec.rules.map((r) => r.name)).toEqual([
      'check',
      'autogen-check',
      'autogen-cronjob-check',
    ]);
    const off = policy([validateRule(), stale], { [AUTOGEN_CONTROLLERS_ANNOTATION]: 'none' });
    expect(withAutogen(off)).toBe(off);
  });

  it('does not generate from rules that are not about Pods', () => {
    const deployOnly = {
      name: 'd',
      match: { any: [{ resources: { kinds: ['Deployment'] } }] },
      validate: { pattern: { spec: {} } },
    };
    expect(names(policy([validateRule(), deployOnly]))).toEqual(['autogen-check', 'autogen-cronjob-check']);
    expect(names(policy([deployOnly]))).toEqual([]);
  });

  it('skips rules whose exclude names kinds other than Pod', () => {
    const rule = validateRule('x', { exclude: { any: [{ resources: { kinds: ['Deployment'] } }] } });
    expect(names(policy([rule]))).toEqual([]);
  });

  it('truncates generated names to 63 characters', () => {
    const long = 'r'.repeat(60);
    expect(names(policy([validateRule(long)]))).toEqual([
      `autogen-${long}`.slice(0, 63),
      `autogen-cronjob-${long}`.slice(0, 63),
    ]);
  });

  it('counts kinds given with group/version or subresource as Pod when checking rules', () => {
    const rule = { ...validateRule(), match: { resources: { kinds: ['v1/Pod'] } } };
    // `v1/Pod` alone does not switch autogen on (Kyverno compares plain names there)...
    expect(names(policy([rule]))).toEqual([]);
    // ...but once another rule does, the rule qualifies.
    expect(names(policy([rule, validateRule('plain')]))).toEqual([
      'autogen-check',
      'autogen-cronjob-check',
      'autogen-plain',
      'autogen-cronjob-plain',
    ]);
  });
});

describe('autogen: cases that switch it off for the whole policy', () => {
  const cases: [string, unknown][] = [
    ['a generate rule', { name: 'g', match: podMatch, generate: { kind: 'ConfigMap', name: 'x', data: {} } }],
    ['a JSON patch', { name: 'm', match: podMatch, mutate: { patchesJson6902: '- op: add' } }],
    [
      'a JSON patch in foreach',
      { name: 'm', match: podMatch, mutate: { foreach: [{ list: 'x', patchesJson6902: 'y' }] } },
    ],
    ['a name filter', { ...validateRule('n'), match: { any: [{ resources: { kinds: ['Pod'], name: 'x' } }] } }],
    ['a names filter', { ...validateRule('n'), match: { all: [{ resources: { kinds: ['Pod'], names: ['x'] } }] } }],
    [
      'a selector',
      { ...validateRule('n'), match: { resources: { kinds: ['Pod'], selector: { matchLabels: { a: 'b' } } } } },
    ],
    ['annotations', { ...validateRule('n'), match: { any: [{ resources: { kinds: ['Pod'], annotations: {} } }] } }],
    [
      'Pod mixed with other kinds',
      { ...validateRule('n'), match: { any: [{ resources: { kinds: ['Pod', 'Deployment'] } }] } },
    ],
    ['an exclude selector', { ...validateRule('n'), exclude: { any: [{ resources: { selector: {} } }] } }],
  ];
  for (const [label, other] of cases) {
    it(`is off with ${label} in any rule`, () => {
      const p = policy([validateRule(), other]);
      expect(effectiveControllers(p)).toBeUndefined();
      expect(autogenRules(p)).toEqual([]);
      expect(withAutogen(p)).toBe(p);
    });
  }

  it('is off with the annotation set to none', () => {
    expect(names(policy([validateRule()], { [AUTOGEN_CONTROLLERS_ANNOTATION]: 'none' }))).toEqual([]);
  });

  it('is off when no rule mentions Pods or controllers', () => {
    const ns = { name: 'n', match: { any: [{ resources: { kinds: ['Namespace'] } }] }, validate: { pattern: {} } };
    expect(effectiveControllers(policy([ns]))).toBeUndefined();
  });

  it('ignores the annotation when the policy does not qualify', () => {
    const p = policy([{ ...validateRule(), match: { resources: { kinds: ['Pod'], name: 'x' } } }], {
      [AUTOGEN_CONTROLLERS_ANNOTATION]: 'Deployment',
    });
    expect(autogenRules(p)).toEqual([]);
  });
});

describe('autogen: the controllers annotation', () => {
  const withAnnotation = (value: string) =>
    autogenRules(policy([validateRule()], { [AUTOGEN_CONTROLLERS_ANNOTATION]: value }));

  it('limits the controllers and leaves out CronJob unless listed', () => {
    const rules = withAnnotation('StatefulSet,Deployment');
    expect(rules.map((r) => r.name)).toEqual(['autogen-check']);
    expect(rules[0].match.any?.[0].resources?.kinds).toEqual(['apps/v1/Deployment', 'apps/v1/StatefulSet']);
  });

  it('generates only the CronJob rule for CronJob alone', () => {
    expect(withAnnotation('CronJob').map((r) => r.name)).toEqual(['autogen-cronjob-check']);
  });

  it('drops unknown names when known ones are present, keeps them otherwise', () => {
    expect(withAnnotation('Deployment,Foo')[0].match.any?.[0].resources?.kinds).toEqual(['apps/v1/Deployment']);
    expect(withAnnotation('Foo')[0].match.any?.[0].resources?.kinds).toEqual(['Foo']);
  });

  it('accepts the old `all` spelling', () => {
    const rules = withAnnotation('all');
    expect(rules.map((r) => r.name)).toEqual(['autogen-check', 'autogen-cronjob-check']);
    expect(rules[0].match.any?.[0].resources?.kinds).toEqual(CONTROLLER_KINDS);
  });

  it('generates nothing for an empty annotation', () => {
    expect(withAnnotation('')).toEqual([]);
  });
});

describe('autogen: match and exclude rewriting', () => {
  it('sets legacy match.resources.kinds and keeps the other filters', () => {
    const rule = { ...validateRule(), match: { resources: { kinds: ['Pod'], namespaces: ['prod'] }, roles: ['r'] } };
    const [deploy, cron] = autogenRules(policy([rule]));
    expect(deploy.match).toEqual({ resources: { kinds: CONTROLLER_KINDS, namespaces: ['prod'] }, roles: ['r'] });
    expect(cron.match).toEqual({ resources: { kinds: ['batch/v1/CronJob'], namespaces: ['prod'] }, roles: ['r'] });
  });

  it('rewrites only the Pod entries of any/all for controllers, every entry for CronJob', () => {
    const rule = {
      ...validateRule(),
      match: {
        any: [
          { resources: { kinds: ['Pod'] } },
          { resources: { kinds: ['Service'] } },
          { subjects: [{ kind: 'User', name: 'u' }] },
        ],
      },
    };
    const [deploy, cron] = autogenRules(policy([rule]));
    expect(deploy.match.any).toEqual([
      { resources: { kinds: CONTROLLER_KINDS } },
      { resources: { kinds: ['Service'] } },
      { subjects: [{ kind: 'User', name: 'u' }] },
    ]);
    expect(cron.match.any).toEqual([
      { resources: { kinds: ['batch/v1/CronJob'] } },
      { resources: { kinds: ['batch/v1/CronJob'] } },
      { subjects: [{ kind: 'User', name: 'u' }], resources: { kinds: ['batch/v1/CronJob'] } },
    ]);
  });

  it('rewrites exclude kinds only where kinds were given', () => {
    const withKinds = validateRule('a', { exclude: { resources: { kinds: ['Pod'], namespaces: ['kube-system'] } } });
    const without = validateRule('b', { exclude: { resources: { namespaces: ['kube-system'] } } });
    const [a, aCron, b, bCron] = autogenRules(policy([withKinds, without]));
    expect(a.exclude).toEqual({ resources: { kinds: CONTROLLER_KINDS, namespaces: ['kube-system'] } });
    expect(aCron.exclude).toEqual({ resources: { kinds: ['batch/v1/CronJob'], namespaces: ['kube-system'] } });
    expect(b.exclude).toEqual({ resources: { namespaces: ['kube-system'] } });
    expect(bCron.exclude).toEqual({ resources: { namespaces: ['kube-system'] } });
  });

  it('gives every exclude any entry the CronJob kind in the CronJob rule', () => {
    const rule = validateRule('a', { exclude: { any: [{ resources: { namespaces: ['kube-system'] } }] } });
    const [deploy, cron] = autogenRules(policy([rule]));
    expect(deploy.exclude).toEqual({ any: [{ resources: { namespaces: ['kube-system'] } }] });
    expect(cron.exclude).toEqual({
      any: [{ resources: { namespaces: ['kube-system'], kinds: ['batch/v1/CronJob'] } }],
    });
  });
});

describe('autogen: rule bodies', () => {
  const generated = (rule: unknown) => autogenRules(policy([rule]));

  it('rewrites request.object references in preconditions, context and messages', () => {
    const rule = validateRule('v', {
      preconditions: { all: [{ key: '{{ request.object.spec.hostNetwork }}', operator: 'Equals', value: true }] },
      context: [{ name: 'n', variable: { jmesPath: 'request.oldObject.metadata.labels' } }],
    });
    (rule.validate as JsonObject).message = 'pod {{ request.object.metadata.name }}';
    const [deploy, cron] = generated(rule);
    expect(deploy.preconditions).toEqual({
      all: [{ key: '{{ request.object.spec.template.spec.hostNetwork }}', operator: 'Equals', value: true }],
    });
    expect(deploy.context).toEqual([
      { name: 'n', variable: { jmesPath: 'request.oldObject.spec.template.metadata.labels' } },
    ]);
    expect(deploy.validate?.message).toBe('pod {{ request.object.spec.template.metadata.name }}');
    expect(cron.preconditions).toEqual({
      all: [
        {
          key: '{{ request.object.spec.jobTemplate.spec.template.spec.hostNetwork }}',
          operator: 'Equals',
          value: true,
        },
      ],
    });
    expect(cron.validate?.message).toBe('pod {{ request.object.spec.jobTemplate.spec.template.metadata.name }}');
  });

  it('keeps deny conditions, rewriting their variables', () => {
    const rule = {
      name: 'd',
      match: podMatch,
      validate: {
        message: 'm',
        deny: { conditions: { any: [{ key: '{{ request.object.spec.x }}', operator: 'Equals', value: 1 }] } },
      },
    };
    const [deploy] = generated(rule);
    expect(deploy.validate).toEqual({
      message: 'm',
      deny: {
        conditions: { any: [{ key: '{{ request.object.spec.template.spec.x }}', operator: 'Equals', value: 1 }] },
      },
    });
  });

  it('wraps every anyPattern entry', () => {
    const rule = { name: 'a', match: podMatch, validate: { anyPattern: [{ spec: { a: 1 } }, { metadata: { b: 2 } }] } };
    const [deploy, cron] = generated(rule);
    expect(deploy.validate?.anyPattern).toEqual([
      { spec: { template: { spec: { a: 1 } } } },
      { spec: { template: { metadata: { b: 2 } } } },
    ]);
    expect(cron.validate?.anyPattern?.[1]).toEqual({
      spec: { jobTemplate: { spec: { template: { metadata: { b: 2 } } } } },
    });
  });

  it('keeps foreach validation as is, with its list rewritten', () => {
    const rule = {
      name: 'f',
      match: podMatch,
      validate: { foreach: [{ list: 'request.object.spec.containers', pattern: { image: 'x' } }] },
    };
    const [deploy] = generated(rule);
    expect(deploy.validate).toEqual({
      foreach: [{ list: 'request.object.spec.template.spec.containers', pattern: { image: 'x' } }],
    });
  });

  it('keeps a CEL rule whenever validate.cel is set, even empty, as Kyverno (HasValidateCEL)', () => {
    const [deploy, cron] = generated({ name: 'c', match: podMatch, validate: { cel: {} } });
    expect(deploy).toMatchObject({ name: 'autogen-c', validate: { cel: {} } });
    expect(cron).toMatchObject({ name: 'autogen-cronjob-c', validate: { cel: {} } });
  });

  it('keeps podSecurity level, version and exclusions', () => {
    const podSecurity = {
      level: 'baseline',
      version: 'latest',
      exclude: [{ controlName: 'Capabilities', images: ['nginx*'] }],
    };
    const [deploy, cron] = generated({ name: 'p', match: podMatch, validate: { podSecurity } });
    expect(deploy.validate).toEqual({ podSecurity });
    expect(cron.validate).toEqual({ podSecurity });
  });

  it('moves strategic merge patches under the template and drops mutate targets', () => {
    const rule = {
      name: 'm',
      match: podMatch,
      mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } }, spec: { x: 1 } } },
    };
    const [deploy, cron] = generated(rule);
    expect(deploy.mutate).toEqual({
      patchStrategicMerge: { spec: { template: { metadata: { labels: { a: 'b' } }, spec: { x: 1 } } } },
    });
    expect(cron.mutate).toEqual({
      patchStrategicMerge: {
        spec: { jobTemplate: { spec: { template: { metadata: { labels: { a: 'b' } }, spec: { x: 1 } } } } },
      },
    });
  });

  it('rebuilds mutate foreach with list, context, preconditions and a wrapped patch only', () => {
    const rule = {
      name: 'm',
      match: podMatch,
      mutate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            order: 'Descending',
            preconditions: { all: [{ key: '{{element.name}}', operator: 'Equals', value: 'a' }] },
            patchStrategicMerge: { spec: { containers: [{ name: '{{element.name}}' }] } },
          },
        ],
      },
    };
    const [deploy] = generated(rule);
    expect(deploy.mutate).toEqual({
      foreach: [
        {
          list: 'request.object.spec.template.spec.containers',
          preconditions: { all: [{ key: '{{element.name}}', operator: 'Equals', value: 'a' }] },
          patchStrategicMerge: { spec: { template: { spec: { containers: [{ name: '{{element.name}}' }] } } } },
        },
      ],
    });
  });

  it('copies verifyImages rules and drops imageExtractors', () => {
    const rule = {
      name: 'vi',
      match: podMatch,
      imageExtractors: { Pod: [{ path: '/x' }] },
      verifyImages: [{ imageReferences: ['ghcr.io/*'], mutateDigest: true }],
    };
    const [deploy] = generated(rule);
    expect(deploy.verifyImages).toEqual(rule.verifyImages);
    expect(deploy).not.toHaveProperty('imageExtractors');
  });

  it('uses the CEL spellings for CEL rules', () => {
    const rule = {
      name: 'c',
      match: podMatch,
      validate: { cel: { expressions: [{ expression: 'object.spec.hostNetwork == false' }] } },
    };
    const [deploy, cron] = generated(rule);
    expect(deploy.validate?.cel).toEqual({
      expressions: [{ expression: 'object.spec.template.spec.hostNetwork == false' }],
    });
    expect(cron.validate?.cel).toEqual({
      expressions: [{ expression: 'object.spec.jobTemplate.spec.template.spec.hostNetwork == false' }],
    });
  });

  it('skips rules autogen cannot carry over', () => {
    expect(generated({ name: 'm', match: podMatch, validate: { manifests: { attestors: [] } } })).toEqual([]);
  });

  it('shifts $(...) references in messages past the pivot', () => {
    const rule = validateRule('r');
    (rule.validate as JsonObject).message = 'want $(pattern/spec/x)';
    const [deploy, cron] = generated(rule);
    expect(deploy.validate?.message).toBe('want $(pattern/spec/template/spec/x)');
    expect(cron.validate?.message).toBe('want $(pattern/spec/jobTemplate/spec/template/spec/template/spec/x)');
  });

  it('reports the generated rules as status', () => {
    expect(autogenStatus(policy([validateRule()])).rules.map((r) => r.name)).toEqual([
      'autogen-check',
      'autogen-cronjob-check',
    ]);
  });
});
