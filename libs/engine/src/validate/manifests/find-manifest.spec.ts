import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { findManifestCandidates } from './find-manifest';
import { ignoreFieldBindings, ignoredFieldsFor, matchPattern } from './ignore-fields';

const deployment = (name: string, namespace?: string, image = 'nginx'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
});

describe('findManifestCandidates', () => {
  it('picks the manifest with the same group, kind and name, preferring the same namespace', () => {
    const docs = [
      deployment('web', 'a'),
      deployment('web', 'b'),
      { ...deployment('web'), apiVersion: 'extensions/v1beta1' },
    ];
    expect(findManifestCandidates(docs, deployment('web', 'b'), [])).toEqual([docs[1]]);
    expect(findManifestCandidates(docs, deployment('web', 'c'), [])).toEqual([docs[0]]);
  });

  it('falls back to the manifests sharing the most values, at most three', () => {
    const docs = [
      deployment('a', undefined, 'redis'),
      deployment('b', undefined, 'registry.example.com/app:1.2.3'),
      deployment('c'),
    ];
    expect(
      findManifestCandidates(docs, deployment('renamed', undefined, 'registry.example.com/app:1.2.3'), []),
    ).toEqual([docs[1]]);
    const many = ['p', 'q', 'r', 's'].map((n) => deployment(n, undefined, 'other'));
    expect(findManifestCandidates(many, deployment('x', undefined, 'none'), [])).toHaveLength(3);
  });

  it('finds nothing when no manifest has the kind', () => {
    expect(
      findManifestCandidates([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } }], deployment('web'), []),
    ).toEqual([]);
  });
});

describe('ignored fields', () => {
  it("matches objects with k8s-manifest-sigstore's patterns", () => {
    expect(matchPattern(undefined, 'x')).toBe(true);
    expect(matchPattern('*', 'x')).toBe(true);
    expect(matchPattern('web*', 'web-1')).toBe(true);
    expect(matchPattern('*-1', 'web-1')).toBe(false); // only a trailing star is a wildcard
    expect(matchPattern('a, b', 'b')).toBe(true);
    expect(matchPattern('-', '')).toBe(true);
  });

  it('collects the defaults for the kind and the rule fields for the objects they name', () => {
    const bindings = ignoreFieldBindings(
      [{ fields: ['spec.replicas'], objects: [{ kind: 'Deployment', group: 'apps', name: 'web' }] }],
      'example.com',
    );
    const fields = ignoredFieldsFor(bindings, deployment('web'));
    expect(fields).toContain('spec.replicas');
    expect(fields).toContain('spec.revisionHistoryLimit');
    expect(fields).toContain('metadata.annotations.example.com/message*');
    expect(fields).not.toContain('spec.clusterIP');
    expect(ignoredFieldsFor(bindings, deployment('api'))).not.toContain('spec.replicas');
  });
});
