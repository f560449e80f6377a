import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { MetricsConfiguration } from '@edict/controller-runtime';
import { CelPolicyCache, PolicyCache, validatePolicyOptions } from '@edict/policy';
import { exceptionOf, fakeCelPolicyFeeds, fakePolicyFeeds, labelRule, policyOf } from '@edict/policy/testing';
import { AdmissionMetrics } from './admission-metrics';
import { PolicyMetrics } from './policy-metrics';

const celException = (name: string, namespace: string, refs: { name: string; kind: string }[]): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'PolicyException',
  metadata: { name, namespace, uid: `u-${name}`, resourceVersion: '1' },
  spec: { policyRefs: refs, matchConditions: [] },
});

function setUp(configuration = MetricsConfiguration.DEFAULT) {
  const feeds = fakePolicyFeeds();
  const cache = new PolicyCache(validatePolicyOptions({ exceptionNamespaces: ['*'] }), feeds);
  const celFeeds = fakeCelPolicyFeeds();
  const cel = new CelPolicyCache(celFeeds, cache);
  cache.start();
  cel.start();
  const metrics = new AdmissionMetrics({
    vocabulary: { knowsKind: () => true, knowsNamespace: () => true },
    maxSeries: 100,
  });
  const policyMetrics = new PolicyMetrics(cache, metrics, configuration, () => cel.exceptionEntries());
  return { feeds, celFeeds, metrics, policyMetrics };
}

const lines = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .sort();

describe("Kyverno's policy exception and legacy policy metrics", () => {
  it('report every PolicyException with each policy it names, and the legacy kinds the cluster holds', async () => {
    const { feeds, celFeeds, metrics, policyMetrics } = setUp();
    feeds.markSynced();
    celFeeds.markSynced();
    // Nothing while the informers have not listed (Kyverno skips unsynced informers).
    feeds.policies.add(policyOf('require-team', [labelRule('check-team', ['Pod'])]));
    feeds.policies.add(policyOf('local', [labelRule('check', ['Pod'])], {}, 'team-a'));
    const twice = exceptionOf('allow-web', 'team-a', 'require-team', ['check-team']);
    twice.spec.exceptions.push({ policyName: 'require-team', ruleNames: ['other'] });
    twice.spec.exceptions.push({ policyName: 'team-a/local', ruleNames: ['check'] });
    feeds.exceptions.add(twice);
    celFeeds.exceptions.add(celException('cel-allow', 'team-b', [{ name: 'vpol', kind: 'ValidatingPolicy' }]));
    celFeeds.exceptions.add(celException('cel-none', 'team-b', []));
    const text = await metrics.text();
    expect(lines(text, 'kyverno_policy_exception_info')).toEqual([
      'kyverno_policy_exception_info{exception_api_group="kyverno.io",exception_namespace="team-a",exception_name="allow-web",policy_kind="ClusterPolicy",policy_name="require-team"} 1',
      'kyverno_policy_exception_info{exception_api_group="kyverno.io",exception_namespace="team-a",exception_name="allow-web",policy_kind="Policy",policy_name="team-a/local"} 1',
      'kyverno_policy_exception_info{exception_api_group="policies.kyverno.io",exception_namespace="team-b",exception_name="cel-allow",policy_kind="ValidatingPolicy",policy_name="vpol"} 1',
      'kyverno_policy_exception_info{exception_api_group="policies.kyverno.io",exception_namespace="team-b",exception_name="cel-none",policy_kind="",policy_name=""} 1',
    ]);
    expect(lines(text, 'kyverno_legacy_policies_total')).toEqual([
      'kyverno_legacy_policies_total{group="kyverno.io",kind="ClusterPolicy"} 1',
      'kyverno_legacy_policies_total{group="kyverno.io",kind="Policy"} 1',
      'kyverno_legacy_policies_total{group="kyverno.io",kind="PolicyException"} 1',
    ]);
    feeds.exceptions.delete(twice);
    const after = await metrics.text();
    expect(lines(after, 'kyverno_policy_exception_info').join('\n')).not.toContain('allow-web');
    expect(after).toContain('kyverno_legacy_policies_total{group="kyverno.io",kind="PolicyException"} 0');
    policyMetrics.stop();
  });

  it('leave out the exceptions of namespaces the kyverno-metrics ConfigMap excludes, and report nothing before the sync', async () => {
    const configuration = new MetricsConfiguration({ namespaces: JSON.stringify({ exclude: ['team-a'] }) });
    const { feeds, celFeeds, metrics, policyMetrics } = setUp(configuration);
    feeds.exceptions.add(exceptionOf('hidden', 'team-a', 'p', ['r']));
    feeds.exceptions.add(exceptionOf('shown', 'team-b', 'p', ['r']));
    expect(lines(await metrics.text(), 'kyverno_policy_exception_info')).toEqual([]);
    feeds.markSynced();
    celFeeds.markSynced();
    const names = lines(await metrics.text(), 'kyverno_policy_exception_info').map(
      (line) => /exception_name="([^"]+)"/.exec(line)![1],
    );
    expect(names).toEqual(['shown']);
    policyMetrics.stop();
  });
});
