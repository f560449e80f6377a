import { describe, expect, it } from 'vitest';
import { binding, configMap, deployment, vap } from '../testing/policies';
import { cliAttributes, evaluateForCli, evaluatePoliciesForCli } from './cli';

const MIN_2 = { validations: [{ expression: 'object.spec.replicas >= 2', message: 'needs 2 replicas' }] };

describe('evaluateForCli', () => {
  it('runs a policy without bindings alone when its constraints select the resource', async () => {
    const policy = vap('min', MIN_2);
    expect((await evaluateForCli({ policy, resource: deployment('one', 1) })).rules).toEqual([
      { name: 'min', ruleType: 'Validation', status: 'fail', message: 'needs 2 replicas' },
    ]);
    expect((await evaluateForCli({ policy, resource: deployment('two', 2) })).rules).toEqual([
      { name: 'min', ruleType: 'Validation', status: 'pass', message: '' },
    ]);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x' } };
    expect((await evaluateForCli({ policy, resource: pod })).rules).toEqual([]);
    const updatesOnly = vap('upd', {
      ...MIN_2,
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments'] },
        ],
      },
    });
    expect((await evaluateForCli({ policy: updatesOnly, resource: deployment('one', 1) })).rules).toEqual([]);
  });

  it('gives one rule per binding that selects the resource, naming the binding', async () => {
    const policy = vap('min', MIN_2);
    const bindings = [
      binding('all', 'min', { validationActions: ['Audit'] }),
      binding('only-db', 'min', { matchResources: { objectSelector: { matchLabels: { app: 'db' } } } }),
      binding('elsewhere', 'other-policy'),
    ];
    const web = await evaluateForCli({ policy, bindings, resource: deployment('web', 1) });
    expect(web.rules).toEqual([
      {
        name: 'min',
        ruleType: 'Validation',
        status: 'fail',
        message: 'needs 2 replicas',
        binding: 'all',
        validationActions: ['Audit'],
      },
    ]);
    const db = await evaluateForCli({ policy, bindings, resource: deployment('db', 3) });
    expect(db.rules.map((r) => [r.binding, r.status])).toEqual([
      ['all', 'pass'],
      ['only-db', 'pass'],
    ]);
    const excluded = binding('not-web', 'min', {
      matchResources: {
        excludeResourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments'],
            resourceNames: ['web'],
          },
        ],
      },
    });
    expect((await evaluateForCli({ policy, bindings: [excluded], resource: deployment('web', 1) })).rules).toEqual([]);
  });

  it('takes params from the given objects, by name or by selector', async () => {
    const policy = vap('max', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        {
          expression: 'object.spec.replicas <= int(params.data.max)',
          messageExpression: "'limit of ' + params.metadata.name",
        },
      ],
    });
    const params = [configMap('strict', { max: '1' }, { set: 'a' }), configMap('loose', { max: '9' }, { set: 'a' })];
    const byName = async (name: string) =>
      (
        await evaluateForCli({
          policy,
          params,
          bindings: [binding('b', 'max', { paramRef: { name } })],
          resource: deployment('web', 4),
        })
      ).rules[0];
    expect(await byName('strict')).toMatchObject({ status: 'fail', message: 'limit of strict' });
    expect(await byName('loose')).toMatchObject({ status: 'pass' });
    expect(await byName('absent')).toMatchObject({
      status: 'error',
      message: 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
    });
    const bySelector = binding('b', 'max', { paramRef: { selector: { matchLabels: { set: 'a' } } } });
    expect(
      (await evaluateForCli({ policy, params, bindings: [bySelector], resource: deployment('web', 4) })).rules[0],
    ).toMatchObject({
      status: 'fail',
      message: 'limit of strict',
    });
  });

  it('builds request.userInfo and namespaceObject from the run', async () => {
    const policy = vap('who', {
      validations: [
        { expression: "request.userInfo.username == 'dev-1' && 'team' in request.userInfo.groups" },
        { expression: "namespaceObject.metadata.name == 'team-a' && namespaceObject.metadata.labels.tier == 'gold'" },
        { expression: "request.operation == 'CREATE' && oldObject == null" },
      ],
    });
    const resource = deployment('web', 1);
    const pass = await evaluateForCli({
      policy,
      resource,
      userInfo: { username: 'dev-1', groups: ['team'] },
      namespaceLabels: { tier: 'gold' },
    });
    expect(pass.rules[0]).toMatchObject({ status: 'pass' });
    const fail = await evaluateForCli({ policy, resource, userInfo: { username: 'dev-1', groups: ['team'] } });
    expect(fail.rules[0]).toMatchObject({ status: 'error' });
    expect(fail.rules[0]!.message).toMatch(
      /^expression 'namespaceObject.metadata.name == 'team-a' .* resulted in error/,
    );
  });

  it('reports skip when matchConditions are not met, and error for expression errors whatever the failurePolicy', async () => {
    const conditioned = vap('c', {
      ...MIN_2,
      matchConditions: [{ name: 'big', expression: 'object.spec.replicas > 10' }],
    });
    expect((await evaluateForCli({ policy: conditioned, resource: deployment('web', 1) })).rules[0]).toMatchObject({
      status: 'skip',
      message: "match conditions aren't met",
    });
    const ignoring = vap('i', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nothing == 1' }] });
    expect((await evaluateForCli({ policy: ignoring, resource: deployment('web', 1) })).rules[0]).toMatchObject({
      status: 'error',
    });
  });

  it('reports a policy that does not compile as an error on the resources it selects', async () => {
    const broken = vap('broken', { validations: [{ expression: 'object.spec.replicas >' }] });
    const result = await evaluateForCli({ policy: broken, resource: deployment('web', 1) });
    expect(result.rules).toHaveLength(1);
    expect(result.rules[0]).toMatchObject({ status: 'error' });
    expect(result.rules[0]!.message).toMatch(/^compilation error: spec\.validations\[0\]\.expression: Invalid value/);
  });

  it('matches resourceNames by generateName prefix when the resource has no name, as Kyverno does', async () => {
    const policy = vap('named', {
      ...MIN_2,
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['deployments'],
            resourceNames: ['web'],
          },
        ],
      },
    });
    const generated = deployment('', 1, { metadata: { generateName: 'web-', namespace: 'team-a' } });
    expect((await evaluateForCli({ policy, resource: generated })).rules).toHaveLength(1);
  });

  it('describes the resource as a CREATE request, the namespace taken from the resource', () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
    expect(cliAttributes({ resource: namespace })).toMatchObject({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      name: 'team-a',
      namespace: '',
      oldObject: null,
    });
    expect(cliAttributes({ resource: deployment('web', 1), resourceName: 'deployments' }).resource).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
    });
  });

  it('answers every policy of a run on a resource, in order', async () => {
    const results = await evaluatePoliciesForCli({
      policies: [vap('min', MIN_2), vap('any', { validations: [{ expression: 'true' }] })],
      resource: deployment('web', 1),
    });
    expect(results.map((r) => [r.policy, r.rules.map((rule) => rule.status)])).toEqual([
      ['min', ['fail']],
      ['any', ['pass']],
    ]);
  });
});
