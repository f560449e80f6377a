import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { MatchResources } from '../policy/types';
import { matchesExceptionResources } from './exception-match';
import type { MatchRequest } from './request';

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'delta' } };
const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'delta' } };
const req = (resource: KubeObject, extra: Partial<MatchRequest> = {}): MatchRequest => ({
  resource,
  operation: 'CREATE',
  ...extra,
});

describe('matchesExceptionResources', () => {
  it('matches any / all filters', () => {
    const any: MatchResources = {
      any: [{ resources: { kinds: ['Deployment'] } }, { resources: { kinds: ['Pod'], namespaces: ['delta'] } }],
    };
    expect(matchesExceptionResources(any, req(pod))).toBe(true);
    const all: MatchResources = { all: [{ resources: { kinds: ['Pod'] } }, { resources: { names: ['db'] } }] };
    expect(matchesExceptionResources(all, req(pod))).toBe(false);
  });

  it('ignores the legacy form and empty statements', () => {
    expect(matchesExceptionResources({ resources: { kinds: ['Pod'] } }, req(pod))).toBe(false);
    expect(matchesExceptionResources({}, req(pod))).toBe(false);
    expect(matchesExceptionResources(undefined, req(pod))).toBe(false);
    expect(matchesExceptionResources({ any: [{ resources: { kinds: [] } }] }, req(pod))).toBe(false);
  });

  it('always checks user info, even without a user', () => {
    const m: MatchResources = { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'alice' }] }] };
    expect(matchesExceptionResources(m, req(pod))).toBe(false);
    expect(matchesExceptionResources(m, req(pod, { user: { userInfo: { username: 'alice' } } }))).toBe(true);
  });

  it('skips the namespace selector for Namespace objects', () => {
    const m: MatchResources = {
      any: [{ resources: { kinds: ['Namespace'], namespaceSelector: { matchLabels: { a: 'b' } } } }],
    };
    expect(matchesExceptionResources(m, req(ns))).toBe(true);
  });

  it('honours operations and subresources', () => {
    const m: MatchResources = { any: [{ resources: { kinds: ['Pod/exec'], operations: ['CONNECT'] } }] };
    const exec = req(pod, { operation: 'CONNECT', subresource: 'exec' });
    expect(matchesExceptionResources(m, exec)).toBe(true);
    expect(matchesExceptionResources(m, req(pod, { operation: 'CREATE', subresource: 'exec' }))).toBe(false);
  });
});
