import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { normalizeGeneratedLabels, splitApiVersion, stringLabels } from './labels';

describe('normalizeGeneratedLabels', () => {
  it('drops generate.kyverno.io labels and sets managed-by, as the Kyverno CLI compares generated objects', () => {
    const actual: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        labels: {
          keep: 'me',
          'generate.kyverno.io/policy-name': 'p',
          'generate.kyverno.io/clone-source': '',
          'app.kubernetes.io/managed-by': 'kyverno',
        },
      },
    };
    const expected: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { keep: 'me' } } };
    expect(normalizeGeneratedLabels(actual)).toEqual(normalizeGeneratedLabels(expected));
    expect(normalizeGeneratedLabels(expected).metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'kyverno',
      keep: 'me',
    });
    expect(actual.metadata.labels).toHaveProperty('generate.kyverno.io/policy-name');
  });

  it('keeps a managed-by value the object sets itself, and adds labels to objects without any', () => {
    const helm: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { labels: { 'app.kubernetes.io/managed-by': 'helm' } },
    };
    expect(normalizeGeneratedLabels(helm).metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'helm' });
    const bare = { apiVersion: 'v1', kind: 'Secret' } as KubeObject;
    expect(normalizeGeneratedLabels(bare).metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'kyverno' });
  });
});

describe('label helpers', () => {
  it('splits apiVersion into group and version', () => {
    expect(splitApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(splitApiVersion('networking.k8s.io/v1')).toEqual({ group: 'networking.k8s.io', version: 'v1' });
    expect(splitApiVersion('')).toEqual({ group: '', version: '' });
  });

  it('reads labels holding a non-string as none, like the Kubernetes accessor', () => {
    const object = { apiVersion: 'v1', kind: 'X', metadata: { labels: { a: 'b', n: 1 } } } as unknown as KubeObject;
    expect(stringLabels(object)).toEqual({});
    expect(stringLabels({ apiVersion: 'v1', kind: 'X', metadata: { labels: { a: 'b' } } })).toEqual({ a: 'b' });
  });
});
