import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import {
  clonedFromSelector,
  concernsGenerate,
  generatedForTriggerSelector,
  generatedOrigin,
  generatedTypes,
  isManagedByKyverno,
} from './downstream';

const object = (labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'team', labels },
});

describe('generate labels read back', () => {
  it('tells generated objects and clone sources from other objects, as Kyverno’s admission does', () => {
    expect(concernsGenerate(object({ 'generate.kyverno.io/policy-name': 'p' }))).toBe(true);
    expect(concernsGenerate(object({ 'generate.kyverno.io/clone-source': '' }))).toBe(true);
    expect(concernsGenerate(object({ 'generate.kyverno.io/policy-name': '' }))).toBe(false);
    expect(concernsGenerate(object({ team: 'a' }))).toBe(false);
    expect(concernsGenerate(undefined)).toBe(false);
    expect(isManagedByKyverno(object({ 'app.kubernetes.io/managed-by': 'kyverno' }))).toBe(true);
    expect(isManagedByKyverno(object({ 'app.kubernetes.io/managed-by': 'helm' }))).toBe(false);
  });

  it('reads the rule and trigger of a generated object', () => {
    const origin = generatedOrigin(
      object({
        'generate.kyverno.io/policy-name': 'p',
        'generate.kyverno.io/policy-namespace': 'ns',
        'generate.kyverno.io/rule-name': 'r',
        'generate.kyverno.io/trigger-group': 'apps',
        'generate.kyverno.io/trigger-version': 'v1',
        'generate.kyverno.io/trigger-kind': 'Deployment',
        'generate.kyverno.io/trigger-namespace': 'team',
        'generate.kyverno.io/trigger-uid': 'u1',
      }),
    );
    expect(origin).toEqual({
      policyName: 'p',
      policyNamespace: 'ns',
      rule: 'r',
      trigger: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team', uid: 'u1' },
    });
    expect(generatedOrigin(object({}))).toBeUndefined();
  });

  it('builds the selectors of copies of a source and of what a policy generated for a trigger', () => {
    const source = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'regcred', namespace: 'default' } };
    const selector = clonedFromSelector(source);
    expect(selector).toEqual({
      'generate.kyverno.io/source-group': '',
      'generate.kyverno.io/source-version': 'v1',
      'generate.kyverno.io/source-kind': 'Secret',
      'generate.kyverno.io/source-namespace': 'default',
      'generate.kyverno.io/source-name': 'regcred',
    });
    // A source name longer than a label value allows is cut as the copies' label has it.
    const long = { ...source, metadata: { ...source.metadata, name: `${'a'.repeat(62)}-${'b'.repeat(40)}` } };
    expect(clonedFromSelector(long)['generate.kyverno.io/source-name']).toBe('a'.repeat(62));
    expect(generatedForTriggerSelector({ name: 'p' }, { apiVersion: 'v1', kind: 'Namespace', uid: 'u1' })).toEqual({
      'app.kubernetes.io/managed-by': 'kyverno',
      'generate.kyverno.io/policy-name': 'p',
      'generate.kyverno.io/policy-namespace': '',
      'generate.kyverno.io/trigger-uid': 'u1',
      'generate.kyverno.io/trigger-namespace': '',
      'generate.kyverno.io/trigger-kind': 'Namespace',
      'generate.kyverno.io/trigger-group': '',
      'generate.kyverno.io/trigger-version': 'v1',
    });
  });

  it('lists the types a rule writes: the pattern’s, the first foreach entry’s, or the cloneList kinds', () => {
    const match = { any: [{ resources: { kinds: ['Namespace'] } }] };
    expect(generatedTypes({ name: 'r', match, generate: { apiVersion: 'v1', kind: 'ConfigMap' } })).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
    expect(
      generatedTypes({
        name: 'r',
        match,
        generate: { foreach: [{ list: 'x', apiVersion: 'v1', kind: 'Secret' }] },
      }),
    ).toEqual([{ apiVersion: 'v1', kind: 'Secret' }]);
    expect(
      generatedTypes({
        name: 'r',
        match,
        generate: { cloneList: { kinds: ['v1/Secret', 'apps/v1/Deployment', 'ConfigMap'] } },
      }),
    ).toEqual([
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { apiVersion: '', kind: 'ConfigMap' },
    ]);
    expect(generatedTypes({ name: 'r', match })).toEqual([]);
  });
});
