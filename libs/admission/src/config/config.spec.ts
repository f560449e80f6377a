import { describe, expect, it } from 'vitest';
import { toResourceRequest } from '../request/to-resource-request';
import { podCreateReview } from '../testing/fixtures';
import type { AdmissionRequest } from '../review/types';
import { isFiltered } from './is-filtered';
import { defaultAdmissionConfig, parseAdmissionConfig } from './parse-config';
import { matchesResourceFilters, parseResourceFilters } from './resource-filters';

const defaults = { controllerNamespace: 'edict' };

function podRequest(change: (request: AdmissionRequest) => void = () => undefined) {
  const review = podCreateReview();
  change(review.request);
  return toResourceRequest(review.request, { roles: { roles: ['shop:deployer'], clusterRoles: ['view'] } });
}

describe('parseAdmissionConfig', () => {
  it('defaults: excludes the controller namespace and kube-system, exceptions from anywhere', () => {
    const { config, problems } = parseAdmissionConfig(undefined, defaults);
    expect(problems).toEqual([]);
    expect(config.excludedNamespaces).toEqual(['edict', 'kube-system']);
    expect(config.exceptionNamespaces).toEqual([]);
    expect(config.resourceFilters).toEqual([]);
    expect(config.defaultRegistry).toBe('docker.io');
  });

  it('reads maxContextSize as bytes or a quantity, within bounds, for both size limits', () => {
    const read = (value: string) => parseAdmissionConfig({ maxContextSize: value }, defaults);
    expect(parseAdmissionConfig({}, defaults).config.limits).toEqual({
      maxContextSize: 2 * 1024 * 1024,
      maxResultSize: 2 * 1024 * 1024,
      maxDocumentSize: 3 * 1024 * 1024,
      maxRuleOperations: 100_000,
    });
    expect(read('4Mi').config.limits).toMatchObject({
      maxContextSize: 4 * 1024 * 1024,
      maxResultSize: 4 * 1024 * 1024,
      maxDocumentSize: 3 * 1024 * 1024,
    });
    expect(read('65536').config.limits.maxContextSize).toBe(65536);
    for (const bad of ['lots', '10', '1Gi', '1.5']) {
      const { config, problems } = read(bad);
      expect(problems.map((problem) => problem.key)).toEqual(['maxContextSize']);
      expect(config.limits.maxContextSize).toBe(2 * 1024 * 1024);
    }
  });

  it('reads maxDocumentSize as a size from 64Ki and maxRuleOperations as a count from 100, keeping the defaults for bad values', () => {
    const { config } = parseAdmissionConfig({ maxDocumentSize: '1Mi', maxRuleOperations: '5000' }, defaults);
    expect(config.limits).toMatchObject({
      maxDocumentSize: 1024 * 1024,
      maxRuleOperations: 5000,
      maxContextSize: 2 * 1024 * 1024,
    });
    for (const [key, bad] of [
      ['maxDocumentSize', '1Ki'],
      ['maxDocumentSize', '1Gi'],
      ['maxRuleOperations', '10'],
      ['maxRuleOperations', 'many'],
    ] as const) {
      const { config: kept, problems } = parseAdmissionConfig({ [key]: bad }, defaults);
      expect(problems.map((problem) => problem.key)).toEqual([key]);
      expect(problems[0]!.message).toContain(JSON.stringify(bad));
      expect(kept.limits).toEqual(defaultAdmissionConfig(defaults).limits);
    }
  });

  it('reads updateRequestThreshold as a whole number from 1, keeping 1000 for a bad value', () => {
    const read = (value: string) => parseAdmissionConfig({ updateRequestThreshold: value }, defaults);
    expect(parseAdmissionConfig({}, defaults).config.updateRequestThreshold).toBe(1000);
    expect(read('5000').config.updateRequestThreshold).toBe(5000);
    expect(read(' 1 ').config.updateRequestThreshold).toBe(1);
    for (const bad of ['0', '-5', '1e3', '2.5', 'many', '', '99999999999']) {
      const { config, problems } = read(bad);
      expect(problems.map((problem) => problem.key)).toEqual(['updateRequestThreshold']);
      expect(problems[0]!.message).toContain(JSON.stringify(bad));
      expect(config.updateRequestThreshold).toBe(1000);
    }
  });

  it('reads a Kyverno ConfigMap as-is', () => {
    const { config, problems } = parseAdmissionConfig(
      {
        resourceFilters: '[Event,*,*][*/*,kube-public,*] [Pod/exec,*,*][ReplicaSet,*]',
        excludeGroups: 'system:nodes, !system:masters',
        excludeUsernames: '!kube-admin,system:serviceaccount:kube-system:*',
        excludeRoles: 'ops:*',
        excludeClusterRoles: 'cluster-admin',
        generateSuccessEvents: 'TRUE',
        defaultRegistry: 'registry.example.com',
        enableDefaultRegistryMutation: 'f',
        webhooks:
          '{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system"]}]}}',
        webhookAnnotations: '{"admissions.enforcer/disabled":"true"}',
        matchConditions: '[{"name":"x","expression":"true"}]',
        somethingElse: 'ignored, other components read it',
      },
      defaults,
    );
    expect(problems).toEqual([]);
    expect(config.resourceFilters).toEqual([
      { group: '*', version: '*', kind: 'Event', subresource: '', namespace: '*', name: '*' },
      { group: '*', version: '*', kind: '*', subresource: '*', namespace: 'kube-public', name: '*' },
      { group: '*', version: '*', kind: 'Pod', subresource: 'exec', namespace: '*', name: '*' },
      { group: '*', version: '*', kind: 'ReplicaSet', subresource: '', namespace: '*', name: '' },
    ]);
    expect(config.exclusions.groups).toEqual(['system:nodes']);
    expect(config.inclusions.groups).toEqual(['system:masters']);
    expect(config.exclusions.usernames).toEqual(['system:serviceaccount:kube-system:*']);
    expect(config.inclusions.usernames).toEqual(['kube-admin']);
    expect(config.exclusions.roles).toEqual(['ops:*']);
    expect(config.exclusions.clusterRoles).toEqual(['cluster-admin']);
    expect(config.generateSuccessEvents).toBe(true);
    expect(config.enableDefaultRegistryMutation).toBe(false);
    expect(config.defaultRegistry).toBe('registry.example.com');
    expect(config.webhook.namespaceSelector?.matchExpressions?.[0]?.values).toEqual(['kube-system']);
    expect(config.webhookAnnotations).toEqual({ 'admissions.enforcer/disabled': 'true' });
    expect(config.matchConditions).toHaveLength(1);
  });

  it('names the bad key and keeps its default, loading the rest', () => {
    const { config, problems } = parseAdmissionConfig(
      {
        generateSuccessEvents: 'yes',
        webhooks: '{not json',
        webhookAnnotations: '{"a": 1}',
        defaultRegistry: 'not a host!',
        resourceFilters: '[A,b,c,d][Event,*,*]',
        excludeGroups: 42,
        exceptionNamespaces: 'policies, team-*',
      },
      defaults,
    );
    expect(problems.map((problem) => problem.key).sort()).toEqual([
      'defaultRegistry',
      'excludeGroups',
      'generateSuccessEvents',
      'resourceFilters',
      'webhookAnnotations',
      'webhooks',
    ]);
    expect(problems.find((p) => p.key === 'generateSuccessEvents')?.message).toBe(
      'generateSuccessEvents: "yes" is not a boolean',
    );
    expect(problems.find((p) => p.key === 'resourceFilters')?.message).toContain('[A,b,c,d] has 4 parts');
    expect(problems.find((p) => p.key === 'webhooks')?.message).toMatch(/^webhooks: not valid JSON/);
    expect(config.generateSuccessEvents).toBe(false);
    expect(config.webhook).toEqual({});
    expect(config.resourceFilters).toHaveLength(1);
    expect(config.exceptionNamespaces).toEqual(['policies', 'team-*']);
  });

  it('rejects webhook selectors with a bad operator, naming the entry', () => {
    const { problems } = parseAdmissionConfig(
      { webhooks: '[{"namespaceSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]}}]' },
      defaults,
    );
    expect(problems[0]?.message).toMatch(/^webhooks: \[0\]\.namespaceSelector: /);
  });

  it("takes an older Kyverno's webhooks list by its first entry", () => {
    const { config, problems } = parseAdmissionConfig(
      { webhooks: '[{"objectSelector":{"matchLabels":{"app":"web"}}},{"objectSelector":{}}]' },
      defaults,
    );
    expect(problems).toEqual([]);
    expect(config.webhook).toEqual({ objectSelector: { matchLabels: { app: 'web' } } });
  });

  it('webhookAnnotations default to GKE Autopilot opt-out (Kyverno chart) and are replaced, not merged', () => {
    expect(parseAdmissionConfig({}, defaults).config.webhookAnnotations).toEqual({
      'admissions.enforcer/disabled': 'true',
    });
    const { config } = parseAdmissionConfig(
      { webhookAnnotations: '{"team":"platform"}', webhookLabels: '{"a":"b"}' },
      defaults,
    );
    expect(config.webhookAnnotations).toEqual({ team: 'platform' });
    expect(config.webhookLabels).toEqual({ a: 'b' });
  });

  it('refuses webhookLabels the API server would refuse', () => {
    const { config, problems } = parseAdmissionConfig({ webhookLabels: '{"a":"not a value!"}' }, defaults);
    expect(problems[0]?.message).toBe('webhookLabels: value of "a" is not a valid label value');
    expect(config.webhookLabels).toEqual({});
  });

  it('checks matchConditions as the API server does (names, expressions, at most 64)', () => {
    const bad = (value: unknown) =>
      parseAdmissionConfig({ matchConditions: JSON.stringify(value) }, defaults).problems[0]?.message;
    expect(bad({ name: 'x' })).toBe('matchConditions: must be a JSON array of {name, expression}');
    expect(bad([{ name: 'a b', expression: 'true' }])).toMatch(/\[0\]\.name must be a qualified name/);
    expect(
      bad([
        { name: 'x', expression: 'true' },
        { name: 'x', expression: 'false' },
      ]),
    ).toBe('matchConditions: [1].name "x" is a duplicate');
    expect(bad([{ name: 'x', expression: ' ' }])).toBe('matchConditions: [0].expression must be a non-empty string');
    expect(bad(Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })))).toBe(
      'matchConditions: must have at most 64 items',
    );
    const { config } = parseAdmissionConfig(
      { matchConditions: '[{"name":"skip-nodes","expression":"!(\'system:nodes\' in request.userInfo.groups)"}]' },
      defaults,
    );
    expect(config.matchConditions).toEqual([
      { name: 'skip-nodes', expression: "!('system:nodes' in request.userInfo.groups)" },
    ]);
  });

  it('reads successEventActions as a comma-separated set (Kyverno 1.18)', () => {
    expect(parseAdmissionConfig({}, defaults).config.successEventActions).toEqual([]);
    const { config } = parseAdmissionConfig(
      { successEventActions: ' Resource Mutated , Resource Passed,,Resource Mutated' },
      defaults,
    );
    expect(config.successEventActions).toEqual(['Resource Mutated', 'Resource Passed']);
  });
});

describe('resource filters (Kyverno ToFilter)', () => {
  const pod = { group: '', version: 'v1', kind: 'Pod' };
  it('requires every part to match; missing parts only match empty values', () => {
    const { filters } = parseResourceFilters('[Pod,shop,*]');
    expect(matchesResourceFilters(filters, pod, '', 'shop', 'web')).toBe(true);
    expect(matchesResourceFilters(filters, pod, '', 'other', 'web')).toBe(false);
    // No subresource in the filter: pods/exec is not filtered.
    expect(matchesResourceFilters(filters, pod, 'exec', 'shop', 'web')).toBe(false);
    const twoParts = parseResourceFilters('[Pod,shop]').filters;
    expect(matchesResourceFilters(twoParts, pod, '', 'shop', 'web')).toBe(false);
  });

  it('does not trim spaces inside brackets, as Kyverno does not', () => {
    const { filters } = parseResourceFilters('[Pod, shop, *]');
    expect(matchesResourceFilters(filters, pod, '', 'shop', 'web')).toBe(false);
  });

  it('filters a Namespace object by its own name through the namespace part', () => {
    const { filters } = parseResourceFilters('[*/*,kube-public,*]');
    const namespace = { group: '', version: 'v1', kind: 'Namespace' };
    expect(matchesResourceFilters(filters, namespace, '', '', 'kube-public')).toBe(true);
    expect(matchesResourceFilters(filters, namespace, '', '', 'default')).toBe(false);
  });
});

describe('isFiltered', () => {
  const config = (data: Record<string, string>) => parseAdmissionConfig(data, defaults).config;

  it('lets an ordinary request through', () => {
    expect(isFiltered(podRequest(), defaultAdmissionConfig(defaults))).toBeUndefined();
  });

  it('skips excluded namespaces, including the Namespace objects themselves', () => {
    expect(
      isFiltered(
        podRequest((r) => (r.namespace = 'edict')),
        config({}),
      ),
    ).toMatch(/namespace edict/);
    expect(
      isFiltered(
        podRequest((r) => (r.namespace = 'kube-system')),
        config({}),
      ),
    ).toMatch(/kube-system/);
    const namespaceObject = podRequest((r) => {
      r.kind = { group: '', version: 'v1', kind: 'Namespace' };
      r.namespace = '';
      r.name = 'kube-system';
    });
    expect(isFiltered(namespaceObject, config({}))).toMatch(/kube-system/);
  });

  it('skips users, groups, roles and cluster roles, unless re-included with !', () => {
    expect(isFiltered(podRequest(), config({ excludeUsernames: 'system:serviceaccount:kube-system:*' }))).toMatch(
      /excluded/,
    );
    expect(isFiltered(podRequest(), config({ excludeGroups: 'system:serviceaccounts' }))).toMatch(/excluded/);
    expect(isFiltered(podRequest(), config({ excludeRoles: 'shop:*' }))).toMatch(/excluded/);
    expect(isFiltered(podRequest(), config({ excludeClusterRoles: 'view' }))).toMatch(/excluded/);
    const reincluded = config({
      excludeGroups: 'system:serviceaccounts',
      excludeUsernames: '!system:serviceaccount:kube-system:replicaset-controller',
    });
    expect(isFiltered(podRequest(), reincluded)).toBeUndefined();
  });

  it('applies resource filters with subresources and Kyverno bookkeeping kinds', () => {
    expect(isFiltered(podRequest(), config({ resourceFilters: '[Pod,shop,checkout-*]' }))).toMatch(/resourceFilters/);
    const exec = podRequest((r) => (r.subResource = 'exec'));
    expect(isFiltered(exec, config({ resourceFilters: '[Pod,shop,*]' }))).toBeUndefined();
    expect(isFiltered(exec, config({ resourceFilters: '[Pod/exec,*,*]' }))).toMatch(/resourceFilters/);
    const report = podRequest((r) => (r.kind = { group: 'wgpolicyk8s.io', version: 'v1alpha2', kind: 'PolicyReport' }));
    expect(isFiltered(report, config({}))).toMatch(/bookkeeping/);
  });
});
