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
  it('admits a policy with a schedule, match, conditions and apiCall contexts (API server and service)', () => {
    const context = [
      { name: 'pods', apiCall: { urlPath: '/api/v1/pods', jmesPath: 'items | length(@)' } },
      { name: 'verdict', apiCall: { method: 'POST', service: { url: 'https://checker.tools.svc/verdict' } } },
    ];
    expect(validateCleanupPolicy(policy({ context, deletionPropagationPolicy: 'Foreground' }))).toEqual([]);
  });

  it('refuses a schedule that is not cron, naming the field', () => {
    expect(errors(policy({ schedule: 'invalid-schedule' }))).toEqual([
      'spec.schedule: invalid cron schedule "invalid-schedule": expected exactly 5 fields, found 1: [invalid-schedule]',
    ]);
    expect(errors(policy({ schedule: undefined }))[0]).toMatch(/^spec\.schedule: .*a schedule is required/);
  });

  it('refuses the context entries Kyverno refuses with its reason, and global context entries', () => {
    expect(errors(policy({ context: [{ name: 'cm', configMap: { name: 'c', namespace: 'd' } }] }))).toEqual([
      'spec.context[0].configMap: ConfigMap is not allowed in CleanUp Policy',
    ]);
    expect(errors(policy({ context: [{ name: 'img', imageRegistry: { reference: 'ghcr.io/x' } }] }))).toEqual([
      'spec.context[0].imageRegistry: ImageRegistry is not allowed in CleanUp Policy',
    ]);
    expect(errors(policy({ context: [{ name: 'g', globalReference: { name: 'entry' } }] }))[0]).toMatch(
      /^spec\.context\[0\]\.globalReference: globalReference is not supported/,
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
