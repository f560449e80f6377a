import { describe, expect, it } from 'vitest';
import type { ValidatingPolicySpec } from '../api/types';
import { matching } from '../testing';
import { autogenConfigs, autogenStatus } from './autogen';
import { rewriteForFamily } from './rewrite';

const onPods: ValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  matchConditions: [
    { name: 'only-labelled', expression: "has(object.metadata.labels) && object.metadata.labels.tier == 'web'" },
  ],
  variables: [{ name: 'containers', expression: 'object.spec.containers' }],
  validations: [
    { expression: 'variables.containers.all(c, c.image != "")', message: 'object.spec.containers need an image' },
  ],
};

describe('autogenConfigs', () => {
  it('makes a cronjobs and a defaults config for every pod controller by default', () => {
    const configs = autogenConfigs(onPods);
    expect(configs.map((config) => config.name)).toEqual(['cronjobs', 'defaults']);
    const [cronjobs, defaults] = configs;
    expect(defaults?.targets.map((target) => target.resource)).toEqual([
      'daemonsets',
      'deployments',
      'replicasets',
      'statefulsets',
      'jobs',
    ]);
    expect(defaults?.spec.matchConstraints).toEqual({
      resourceRules: [
        {
          apiGroups: ['apps'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
        },
        { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['jobs'] },
      ],
    });
    expect(cronjobs?.targets).toEqual([{ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' }]);
    expect(cronjobs?.spec.variables).toEqual([
      { name: 'containers', expression: 'object.spec.jobTemplate.spec.template.spec.containers' },
    ]);
  });

  it('rewrites expressions and messages, keeps condition names and the controller name and namespace', () => {
    const spec: ValidatingPolicySpec = {
      ...onPods,
      validations: [
        {
          expression:
            "object.metadata.name != '' && object.metadata.namespace != 'kube-system' && object.metadata.labels.app != ''",
          messageExpression: "'pod ' + object.metadata.name",
        },
      ],
    };
    const defaults = autogenConfigs(spec).find((config) => config.name === 'defaults');
    expect(defaults?.spec.matchConditions).toEqual([
      {
        name: 'only-labelled',
        expression: "has(object.spec.template.metadata.labels) && object.spec.template.metadata.labels.tier == 'web'",
      },
    ]);
    expect(defaults?.spec.validations?.[0]).toEqual({
      expression:
        "object.metadata.name != '' && object.metadata.namespace != 'kube-system' && object.spec.template.metadata.labels.app != ''",
      messageExpression: "'pod ' + object.metadata.name",
    });
    expect(autogenConfigs(onPods)[1]?.spec.validations?.[0]?.message).toBe(
      'object.spec.template.spec.containers need an image',
    );
  });

  it('follows spec.autogen.podControllers.controllers, and an empty list means none', () => {
    const chosen = autogenConfigs({
      ...onPods,
      autogen: { podControllers: { controllers: ['deployments', 'unknown'] } },
    });
    expect(chosen.map((config) => config.name)).toEqual(['defaults']);
    expect(chosen[0]?.spec.matchConstraints?.resourceRules?.[0]?.resources).toEqual(['deployments']);
    expect(chosen[0]?.spec.autogen).toEqual({ podControllers: { controllers: ['deployments', 'unknown'] } });
    expect(autogenConfigs({ ...onPods, autogen: { podControllers: { controllers: [] } } })).toEqual([]);
  });

  it('keeps the namespace selector and refuses object selectors, exclusions, names and other resources', () => {
    const withNamespaces = autogenConfigs({
      ...onPods,
      matchConstraints: { ...matching('', 'v1', 'pods'), namespaceSelector: { matchLabels: { team: 'a' } } },
    });
    expect(withNamespaces[0]?.spec.matchConstraints?.namespaceSelector).toEqual({ matchLabels: { team: 'a' } });
    const refused: ValidatingPolicySpec['matchConstraints'][] = [
      { ...matching('', 'v1', 'pods'), objectSelector: { matchLabels: { a: 'b' } } },
      { ...matching('', 'v1', 'pods'), excludeResourceRules: matching('', 'v1', 'pods')?.resourceRules },
      {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], resourceNames: ['x'] },
        ],
      },
      {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods', 'services'] },
        ],
      },
      matching('apps', 'v1', 'deployments'),
      undefined,
    ];
    for (const matchConstraints of refused) expect(autogenConfigs({ ...onPods, matchConstraints })).toEqual([]);
    const ephemeral = {
      resourceRules: [
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['CREATE'],
          resources: ['pods', 'pods/ephemeralcontainers'],
        },
      ],
    };
    expect(autogenConfigs({ ...onPods, matchConstraints: ephemeral })).toHaveLength(2);
  });

  it('writes status.autogen.configs keyed by config', () => {
    const status = autogenStatus(
      autogenConfigs({ ...onPods, autogen: { podControllers: { controllers: ['cronjobs'] } } }),
    );
    expect(Object.keys((status.configs ?? {}) as object)).toEqual(['cronjobs']);
    expect(autogenStatus([])).toEqual({});
  });
});

describe('rewriteForFamily', () => {
  it('rewrites object and oldObject, not other identifiers ending the same way', () => {
    expect(rewriteForFamily('oldObject.spec.x == object.spec.x', 'defaults')).toBe(
      'oldObject.spec.template.spec.x == object.spec.template.spec.x',
    );
    expect(rewriteForFamily('object.metadata.nameSuffix', 'defaults')).toBe('object.spec.template.metadata.nameSuffix');
    expect(rewriteForFamily('object.metadata.name', 'cronjobs')).toBe('object.metadata.name');
  });
});
