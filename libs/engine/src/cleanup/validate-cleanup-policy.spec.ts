import { describe, expect, it } from 'vitest';
import type { CleanupPolicy } from './cleanup-policy';
import { validateCleanupPolicy } from './validate-cleanup-policy';

function policy(spec: Record<string, unknown>, kind: CleanupPolicy['kind'] = 'ClusterCleanupPolicy'): CleanupPolicy {
  return {
    apiVersion: 'kyverno.io/v2',
    kind,
    metadata: { name: 'p', ...(kind === 'CleanupPolicy' ? { namespace: 'team' } : {}) },
    spec: {
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      conditions: { all: [{ key: '{{ target.metadata.name }}', operator: 'Equals', value: 'example' }] },
      schedule: '*/1 * * * *',
      ...spec,
    } as CleanupPolicy['spec'],
  };
}

const errors = (p: CleanupPolicy) => validateCleanupPolicy(p).map((d) => `${d.path ?? ''}: ${d.message}`);

describe('validateCleanupPolicy', () => {
  it('admits a policy with a schedule, match, conditions and an apiCall context', () => {
    const context = [{ name: 'pods', apiCall: { urlPath: '/api/v1/pods', jmesPath: 'items | length(@)' } }];
    expect(validateCleanupPolicy(policy({ context, deletionPropagationPolicy: 'Foreground' }))).toEqual([]);
  });

  it('refuses a schedule that is not cron, naming the field', () => {
    expect(errors(policy({ schedule: 'invalid-schedule' }))).toEqual([
      'spec.schedule: invalid cron schedule "invalid-schedule": expected exactly 5 fields, found 1: [invalid-schedule]',
    ]);
    expect(errors(policy({ schedule: undefined }))[0]).toMatch(/^spec\.schedule: .*a schedule is required/);
  });

  it('refuses context entries a cleanup run cannot load', () => {
    expect(errors(policy({ context: [{ name: 'cm', configMap: { name: 'c', namespace: 'd' } }] }))).toEqual([
      "spec.context[0].configMap: configMap is not supported in cleanup policies' context (only apiCall and variable)",
    ]);
    expect(errors(policy({ context: [{ name: 'img', imageRegistry: { reference: 'ghcr.io/x' } }] }))[0]).toMatch(
      /spec\.context\[0\]\.imageRegistry: imageRegistry is not supported/,
    );
    expect(errors(policy({ context: [{ name: 'target', variable: { value: 1 } }] }))[0]).toMatch(
      /pre-defined variable target/,
    );
  });

  it('refuses an empty match, cluster-scoped kinds in a namespaced policy and unknown operators', () => {
    expect(errors(policy({ match: {} }))[0]).toMatch(/^spec\.match: Required value/);
    expect(errors(policy({ match: { any: [{ resources: { kinds: ['Namespace'] } }] } }, 'CleanupPolicy'))).toEqual([
      "spec.match.any[0].resources.kinds[0]: Cluster wide resource 'Namespace' not allowed in namespaced policy",
    ]);
    expect(errors(policy({ conditions: { any: [{ key: 'a', operator: 'Near', value: 'b' }] } }))[0]).toMatch(
      /^spec\.conditions\.any\[0\]\.operator: entered value of `operator` is invalid/,
    );
  });
});
