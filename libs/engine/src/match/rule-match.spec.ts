import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { MatchResources, Rule } from '../policy/types';
import type { MatchRequest } from './request';
import { matchesResources, ruleMatches } from './rule-match';

function pod(name: string, namespace = 'default', extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...extra }, spec: {} };
}
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod' },
};
const namespaceObj: KubeObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', labels: { team: 'a' } },
};
const clusterRole: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'reader' },
};

function req(resource: KubeObject, extra: Partial<MatchRequest> = {}): MatchRequest {
  return { resource, operation: 'CREATE', ...extra };
}
function rule(match: MatchResources, exclude?: MatchResources): Rule {
  return { name: 'r', match, ...(exclude ? { exclude } : {}) };
}
const anyOf = (...resources: NonNullable<MatchResources['resources']>[]): MatchResources => ({
  any: resources.map((r) => ({ resources: r })),
});
const matches = (m: MatchResources, r: MatchRequest, exclude?: MatchResources, ns?: string) =>
  ruleMatches(rule(m, exclude), r, ns).matched;

describe('ruleMatches: kinds', () => {
  it('matches by kind and reports a mismatch', () => {
    expect(matches(anyOf({ kinds: ['Pod'] }), req(pod('a')))).toBe(true);
    const result = ruleMatches(
      { name: 'check', match: { all: [{ resources: { kinds: ['Deployment', 'StatefulSet'] } }] } },
      req(pod('a')),
    );
    expect(result).toEqual({
      matched: false,
      reason: 'rule check not matched:\n 1. kind does not match [Deployment StatefulSet]',
    });
  });

  it('matches group/version against the apiVersion', () => {
    expect(matches(anyOf({ kinds: ['apps/v1/Deployment'] }), req(deployment))).toBe(true);
    expect(matches(anyOf({ kinds: ['v1/Deployment'] }), req(deployment))).toBe(true);
    expect(matches(anyOf({ kinds: ['apps/v1beta2/Deployment'] }), req(deployment))).toBe(false);
    expect(matches(anyOf({ kinds: ['v1/Pod'] }), req(pod('a')))).toBe(true);
    expect(matches(anyOf({ kinds: ['core/v1/Pod'] }), req(pod('a')))).toBe(false);
  });

  it('uses the request kind and subresource when given', () => {
    const podGvk = { group: '', version: 'v1', kind: 'Pod' };
    const execOptions: KubeObject = {
      apiVersion: 'v1',
      kind: 'PodExecOptions',
      metadata: { name: 'a', namespace: 'default' },
    };
    const exec = req(execOptions, { operation: 'CONNECT', requestKind: podGvk, subresource: 'exec' });
    expect(matches(anyOf({ kinds: ['Pod/exec'] }), exec)).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'] }), exec)).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod/status'] }), exec)).toBe(false);
    expect(matches(anyOf({ kinds: ['Pod/exec'] }), req(pod('a')))).toBe(false);
    const scale = req(deployment, {
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      subresource: 'scale',
    });
    expect(matches(anyOf({ kinds: ['*/scale'] }), scale)).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod/exec'] }), req(pod('a'), { subresource: 'ephemeralcontainers' }))).toBe(true);
    // A Scale object sent for deployments/scale: matched through its parent kind.
    const scaleObj: KubeObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'prod' },
      spec: { replicas: 4 },
    };
    const viaParent = req(scaleObj, {
      operation: 'UPDATE',
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      subresource: 'scale',
    });
    expect(matches(anyOf({ kinds: ['Deployment/scale'] }), viaParent)).toBe(true);
    expect(matches(anyOf({ kinds: ['Deployment/scale'] }), req(scaleObj))).toBe(false);
  });
});

describe('ruleMatches: names and namespaces', () => {
  it('matches name and names with wildcards', () => {
    expect(matches(anyOf({ kinds: ['Pod'], name: 'web-*' }), req(pod('web-1')))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], name: 'web-*' }), req(pod('db-1')))).toBe(false);
    expect(matches(anyOf({ kinds: ['Pod'], names: ['db', 'web-?'] }), req(pod('web-1')))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], names: ['db', 'api'] }), req(pod('web-1')))).toBe(false);
  });

  it('falls back to generateName for unnamed objects', () => {
    const unnamed: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'web-', namespace: 'default' },
    };
    expect(matches(anyOf({ kinds: ['Pod'], name: 'web-*' }), req(unnamed))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], names: ['web-'] }), req(unnamed))).toBe(true);
  });

  it('matches namespaces with wildcards', () => {
    expect(matches(anyOf({ kinds: ['Pod'], namespaces: ['prod-*'] }), req(pod('a', 'prod-eu')))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], namespaces: ['prod-*', 'staging'] }), req(pod('a', 'dev')))).toBe(false);
  });

  it('matches a Namespace object by its own name', () => {
    expect(matches(anyOf({ kinds: ['Namespace'], namespaces: ['team-*'] }), req(namespaceObj))).toBe(true);
    expect(matches(anyOf({ kinds: ['Namespace'], namespaces: ['other'] }), req(namespaceObj))).toBe(false);
  });

  it('gives cluster-scoped objects an empty namespace', () => {
    expect(matches(anyOf({ kinds: ['ClusterRole'], namespaces: ['default'] }), req(clusterRole))).toBe(false);
    expect(matches(anyOf({ kinds: ['ClusterRole'], namespaces: ['*'] }), req(clusterRole))).toBe(true);
  });
});

describe('ruleMatches: annotations, selectors, operations', () => {
  const annotated = pod('a', 'default', {
    annotations: { 'example.com/owner': 'team-a' },
    labels: { app: 'web', env: 'prod' },
  });

  it('matches annotations with wildcard keys and values', () => {
    expect(matches(anyOf({ kinds: ['Pod'], annotations: { 'example.com/owner': 'team-a' } }), req(annotated))).toBe(
      true,
    );
    expect(matches(anyOf({ kinds: ['Pod'], annotations: { 'example.com/*': 'team-?' } }), req(annotated))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], annotations: { 'example.com/owner': 'team-b' } }), req(annotated))).toBe(
      false,
    );
    expect(matches(anyOf({ kinds: ['Pod'], annotations: { x: '*' } }), req(pod('plain')))).toBe(false);
  });

  it('matches the label selector, with Kyverno wildcards', () => {
    expect(matches(anyOf({ kinds: ['Pod'], selector: { matchLabels: { app: 'web' } } }), req(annotated))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], selector: { matchLabels: { app: 'w*' } } }), req(annotated))).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], selector: { matchLabels: { app: 'db' } } }), req(annotated))).toBe(false);
    expect(matches(anyOf({ kinds: ['Pod'], selector: {} }), req(pod('plain')))).toBe(true);
    expect(
      matches(
        anyOf({
          kinds: ['Pod'],
          selector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
        }),
        req(annotated),
      ),
    ).toBe(false);
  });

  it('reads labels or annotations holding anything but strings as none, as Kyverno does', () => {
    const broken = pod('b', 'default', {
      labels: { app: 'web', broken: null },
      annotations: { owner: 'team-a', count: 3 },
    } as unknown as KubeObject['metadata']);
    expect(matches(anyOf({ kinds: ['Pod'], selector: { matchLabels: { app: 'w*' } } }), req(broken))).toBe(false);
    expect(
      matches(
        anyOf({ kinds: ['Pod'], selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] } }),
        req(broken),
      ),
    ).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'], annotations: { owner: 'team-*' } }), req(broken))).toBe(false);
  });

  it('reports an invalid selector as a failure', () => {
    const result = ruleMatches(
      rule({ resources: { kinds: ['Pod'], selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } }),
      req(annotated),
    );
    expect(result.matched).toBe(false);
    expect(result.reason).toMatch(/1\. failed to parse selector: .*can't be empty/);
  });

  it('matches the namespace selector against the namespace labels', () => {
    const m = anyOf({ kinds: ['Pod'], namespaceSelector: { matchLabels: { env: 'prod' } } });
    expect(matches(m, req(pod('a'), { namespaceLabels: { env: 'prod' } }))).toBe(true);
    expect(matches(m, req(pod('a'), { namespaceLabels: { env: 'dev' } }))).toBe(false);
    expect(matches(m, req(pod('a')))).toBe(false);
    const reason = ruleMatches(rule({ all: m.any }), req(pod('a'))).reason;
    expect(reason).toBe('rule r not matched:\n 1. namespace selector does not match labels');
  });

  it('never matches a Namespace object through a namespace selector', () => {
    const m: MatchResources = { all: [{ resources: { kinds: ['Namespace'], namespaceSelector: {} } }] };
    expect(ruleMatches(rule(m), req(namespaceObj, { namespaceLabels: { team: 'a' } })).reason).toBe(
      'rule r not matched:\n 1. namespace selector is not applicable for namespace resource',
    );
  });

  it('applies an empty namespace selector to cluster-scoped objects (their namespace has no labels)', () => {
    expect(matches(anyOf({ kinds: ['ClusterRole'], namespaceSelector: {} }), req(clusterRole))).toBe(true);
    expect(
      matches(anyOf({ kinds: ['ClusterRole'], namespaceSelector: { matchLabels: { a: 'b' } } }), req(clusterRole)),
    ).toBe(false);
  });

  it('matches operations, and an operation mismatch is the only reason given', () => {
    const m: MatchResources = { all: [{ resources: { kinds: ['Deployment'], operations: ['DELETE'] } }] };
    expect(matches(m, req(pod('a'), { operation: 'DELETE' }))).toBe(false);
    expect(ruleMatches(rule(m), req(pod('a'))).reason).toBe('rule r not matched:\n 1. operation does not match');
    expect(
      matches(anyOf({ kinds: ['Pod'], operations: ['CREATE', 'UPDATE'] }), req(pod('a'), { operation: 'UPDATE' })),
    ).toBe(true);
  });

  it('numbers every failing attribute of an all-filter', () => {
    const m: MatchResources = { all: [{ resources: { kinds: ['Deployment'], name: 'x', namespaces: ['y'] } }] };
    expect(ruleMatches(rule(m), req(pod('a'))).reason).toBe(
      'rule r not matched:\n 1. kind does not match [Deployment]\n 2. name does not match\n 3. namespace does not match',
    );
  });
});

describe('ruleMatches: any / all / legacy', () => {
  it('any: one filter is enough', () => {
    const m = anyOf({ kinds: ['Deployment'] }, { kinds: ['Pod'], names: ['a'] });
    expect(matches(m, req(pod('a')))).toBe(true);
    expect(ruleMatches(rule(m), req(pod('b'))).reason).toBe('rule r not matched:\n 1. no resource matched');
  });

  it('all: every filter must hold', () => {
    const m: MatchResources = { all: [{ resources: { kinds: ['Pod'] } }, { resources: { namespaces: ['prod'] } }] };
    expect(matches(m, req(pod('a', 'prod')))).toBe(true);
    expect(matches(m, req(pod('a', 'dev')))).toBe(false);
  });

  it('any wins over all when both are given', () => {
    const m: MatchResources = {
      any: [{ resources: { kinds: ['Pod'] } }],
      all: [{ resources: { kinds: ['Deployment'] } }],
    };
    expect(matches(m, req(pod('a')))).toBe(true);
  });

  it('supports the legacy resources form with top-level user info', () => {
    expect(matches({ resources: { kinds: ['Pod'] } }, req(pod('a')))).toBe(true);
    expect(matches({ resources: { kinds: ['Deployment'] } }, req(pod('a')))).toBe(false);
    const withUser: MatchResources = { resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'alice' }] };
    expect(matches(withUser, req(pod('a'), { user: { userInfo: { username: 'alice' } } }))).toBe(true);
    expect(matches(withUser, req(pod('a'), { user: { userInfo: { username: 'bob' } } }))).toBe(false);
  });

  it('an empty match matches nothing', () => {
    expect(ruleMatches(rule({}), req(pod('a'))).reason).toBe('rule r not matched:\n 1. match cannot be empty');
    expect(matches({ any: [{}] }, req(pod('a')))).toBe(false);
    expect(matches({ all: [{ resources: {} }] }, req(pod('a')))).toBe(false);
    expect(ruleMatches({ name: 'r' } as Rule, req(pod('a'))).matched).toBe(false);
  });

  it('an explicitly empty kinds list is not an empty filter (Go zero-value semantics)', () => {
    expect(matches({ any: [{ resources: { kinds: [] } }] }, req(pod('a')))).toBe(true);
  });
});

describe('ruleMatches: user info', () => {
  const alice = { roles: ['default:dev'], clusterRoles: ['view'], userInfo: { username: 'alice', groups: ['devs'] } };
  const saUser = { userInfo: { username: 'system:serviceaccount:ci:bot', groups: ['system:serviceaccounts'] } };

  it('matches subjects, roles and cluster roles', () => {
    expect(
      matches(
        { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'Group', name: 'devs' }] }] },
        req(pod('a'), { user: alice }),
      ),
    ).toBe(true);
    expect(
      matches({ any: [{ resources: { kinds: ['Pod'] }, roles: ['default:dev'] }] }, req(pod('a'), { user: alice })),
    ).toBe(true);
    expect(
      matches({ any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['admin'] }] }, req(pod('a'), { user: alice })),
    ).toBe(false);
    expect(
      matches(
        { any: [{ subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'ci' }] }] },
        req(pod('a'), { user: saUser }),
      ),
    ).toBe(true);
    expect(
      matches(
        { any: [{ subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'prod' }] }] },
        req(pod('a'), { user: saUser }),
      ),
    ).toBe(false);
  });

  it('ignores user filters in match when the request has no user information', () => {
    expect(matches({ any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['admin'] }] }, req(pod('a')))).toBe(true);
    // ...so a filter made only of user info becomes empty and matches nothing.
    expect(matches({ any: [{ clusterRoles: ['admin'] }] }, req(pod('a')))).toBe(false);
  });

  it('does not drop user filters in exclude when the request has no user information', () => {
    const exclude: MatchResources = { any: [{ subjects: [{ kind: 'User', name: 'alice' }] }] };
    expect(matches(anyOf({ kinds: ['Pod'] }), req(pod('a')), exclude)).toBe(true);
    expect(matches(anyOf({ kinds: ['Pod'] }), req(pod('a'), { user: alice }), exclude)).toBe(false);
  });
});

describe('ruleMatches: exclude', () => {
  const m = anyOf({ kinds: ['Pod'] });

  it('exclude.any: any holding filter excludes', () => {
    const exclude: MatchResources = {
      any: [{ resources: { namespaces: ['kube-system'] } }, { resources: { names: ['skip-*'] } }],
    };
    expect(matches(m, req(pod('a', 'kube-system')), exclude)).toBe(false);
    expect(matches(m, req(pod('skip-me')), exclude)).toBe(false);
    expect(matches(m, req(pod('keep')), exclude)).toBe(true);
    expect(ruleMatches(rule(m, exclude), req(pod('skip-me'))).reason).toBe(
      'rule r not matched:\n 1. resource excluded since one of the criteria excluded it',
    );
  });

  it('exclude.all: excluded only when every filter holds', () => {
    const exclude: MatchResources = {
      all: [{ resources: { namespaces: ['kube-system'] } }, { resources: { names: ['skip-*'] } }],
    };
    expect(matches(m, req(pod('skip-me', 'kube-system')), exclude)).toBe(false);
    expect(matches(m, req(pod('skip-me')), exclude)).toBe(true);
    expect(matches(m, req(pod('a', 'kube-system')), exclude)).toBe(true);
    expect(ruleMatches(rule(m, exclude), req(pod('skip-me', 'kube-system'))).reason).toBe(
      'rule r not matched:\n 1. resource excluded since the combination of all criteria exclude it',
    );
  });

  it('exclude in the legacy form', () => {
    const exclude: MatchResources = { resources: { namespaces: ['kube-system'] } };
    expect(matches(m, req(pod('a', 'kube-system')), exclude)).toBe(false);
    expect(matches(m, req(pod('a')), exclude)).toBe(true);
  });

  it('an empty exclude or empty exclude filter excludes nothing', () => {
    expect(matches(m, req(pod('a')), {})).toBe(true);
    expect(matches(m, req(pod('a')), { any: [{}] })).toBe(true);
    expect(matches(m, req(pod('a')), { all: [{ resources: {} }, { resources: { kinds: ['Pod'] } }] })).toBe(true);
  });

  it('excludes by operation and namespace selector', () => {
    expect(
      matches(m, req(pod('a'), { operation: 'DELETE' }), { any: [{ resources: { operations: ['DELETE'] } }] }),
    ).toBe(false);
    expect(
      matches(m, req(pod('a'), { operation: 'CREATE' }), { any: [{ resources: { operations: ['DELETE'] } }] }),
    ).toBe(true);
    const byNs: MatchResources = { any: [{ resources: { namespaceSelector: { matchLabels: { exempt: 'true' } } } }] };
    expect(matches(m, req(pod('a'), { namespaceLabels: { exempt: 'true' } }), byNs)).toBe(false);
    expect(matches(m, req(pod('a'), { namespaceLabels: {} }), byNs)).toBe(true);
  });

  it('reports match failures without consulting exclude', () => {
    const exclude: MatchResources = { any: [{ resources: { kinds: ['Deployment'] } }] };
    expect(ruleMatches(rule(anyOf({ kinds: ['Deployment'] }), exclude), req(pod('a'))).reason).toBe(
      'rule r not matched:\n 1. no resource matched',
    );
  });
});

describe('ruleMatches: namespaced Policy', () => {
  const m = anyOf({ kinds: ['*'] });

  it('applies only to resources in the policy namespace', () => {
    expect(ruleMatches(rule(m), req(pod('a', 'team-a')), 'team-a').matched).toBe(true);
    expect(ruleMatches(rule(m), req(pod('a', 'team-b')), 'team-a')).toEqual({
      matched: false,
      reason: 'policy and resource namespaces mismatch',
    });
  });

  it('never applies to cluster-scoped resources, Namespaces included', () => {
    expect(ruleMatches(rule(m), req(clusterRole), 'team-a').matched).toBe(false);
    expect(ruleMatches(rule(m), req(namespaceObj), 'team-a').matched).toBe(false);
  });

  it('a ClusterPolicy (no namespace) applies everywhere', () => {
    expect(ruleMatches(rule(m), req(clusterRole)).matched).toBe(true);
    expect(ruleMatches(rule(m), req(clusterRole), '').matched).toBe(true);
  });
});

describe('matchesResources', () => {
  it('evaluates a match block on its own', () => {
    expect(matchesResources(anyOf({ kinds: ['Pod'] }), req(pod('a')))).toBe(true);
    expect(matchesResources(anyOf({ kinds: ['Pod'] }), req(deployment))).toBe(false);
    expect(matchesResources(anyOf({ kinds: ['Pod'] }), req(pod('a', 'x')), 'y')).toBe(false);
  });
});
