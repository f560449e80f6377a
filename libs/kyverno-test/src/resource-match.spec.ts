import { describe, expect, it } from 'vitest';
import type { Policy } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { displayResource, namesPolicy, namesResource, namesRule, resolveNamedResources } from './resource-match';
import type { ExpectedResult } from './types';

const object = (kind: string, name: string, namespace?: string) =>
  ({ apiVersion: 'v1', kind, metadata: { name, namespace } }) as KubeObject;
const entry = (kind: string, namespace?: string): ExpectedResult => ({
  index: 0,
  policy: 'p',
  rule: 'r',
  kind,
  result: 'pass',
  resources: [],
  namespace,
});

describe('resource name matching', () => {
  it('matches `name` and `namespace/name`', () => {
    const pod = object('Pod', 'web', 'team');
    expect(namesResource('web', pod)).toBe(true);
    expect(namesResource('team/web', pod)).toBe(true);
    expect(namesResource('other/web', pod)).toBe(false);
    expect(namesResource('web', pod, 'other')).toBe(false);
    expect(namesResource('web', pod, 'team')).toBe(true);
  });

  it('narrows to the entry’s kind when an object of that kind has the name', () => {
    const all = [object('Pod', 'web', 'a'), object('Deployment', 'web', 'a'), object('Pod', 'web', 'b')];
    expect(resolveNamedResources(entry('Deployment'), 'web', all).map((o) => o.kind)).toEqual(['Deployment']);
    expect(resolveNamedResources(entry('Pod'), 'b/web', all)).toEqual([all[2]]);
    expect(resolveNamedResources(entry('Pod'), 'web', all)).toEqual([all[0], all[2]]);
    // No object of the kind: every object with the name.
    expect(resolveNamedResources(entry('Service'), 'web', all)).toHaveLength(3);
    expect(resolveNamedResources(entry('Pod'), 'nope', all)).toEqual([]);
  });

  it('matches autogen rule names and an empty rule', () => {
    expect(namesRule('r', 'r')).toBe(true);
    expect(namesRule('r', 'autogen-r')).toBe(true);
    expect(namesRule('r', 'autogen-cronjob-r')).toBe(true);
    expect(namesRule('r', 'autogen-other')).toBe(false);
    expect(namesRule('', 'anything')).toBe(true);
  });

  it('matches a namespaced Policy by name or namespace/name', () => {
    const policy = { kind: 'Policy', metadata: { name: 'p', namespace: 'team' } } as Policy;
    expect(namesPolicy('p', policy)).toBe(true);
    expect(namesPolicy('team/p', policy)).toBe(true);
    expect(namesPolicy('other/p', policy)).toBe(false);
  });

  it('prints resources as Kyverno does', () => {
    expect(displayResource('Pod', 'web')).toBe('Pod/web');
    expect(displayResource('Pod', 'team/web')).toBe('team/Pod/web');
    expect(displayResource('Pod', 'web', 'team')).toBe('team/Pod/web');
    expect(displayResource('', 'web')).toBe('web');
  });
});
