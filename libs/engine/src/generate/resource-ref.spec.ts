import { describe, expect, it } from 'vitest';
import { formatRef, isObjectAt, parseKindEntry } from './resource-ref';

describe('parseKindEntry', () => {
  it('reads the forms cloneList.kinds accepts', () => {
    expect(parseKindEntry('Secret')).toEqual({ apiVersion: '', kind: 'Secret' });
    expect(parseKindEntry('v1/Secret')).toEqual({ apiVersion: 'v1', kind: 'Secret' });
    expect(parseKindEntry('apps/v1/Deployment')).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(parseKindEntry('apps/*/Deployment')).toEqual({ apiVersion: '', kind: 'Deployment' });
  });
});

describe('resource references', () => {
  it('formats namespaced and cluster-scoped references', () => {
    expect(formatRef({ apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 'b' })).toBe('v1/Secret a/b');
    expect(formatRef({ apiVersion: '', kind: 'Namespace', namespace: '', name: 'n' })).toBe('Namespace n');
  });

  it('compares an object with a reference, apiVersion only when given', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' } };
    expect(isObjectAt(object, { apiVersion: '', kind: 'ConfigMap', namespace: 'n', name: 'c' })).toBe(true);
    expect(isObjectAt(object, { apiVersion: 'v2', kind: 'ConfigMap', namespace: 'n', name: 'c' })).toBe(false);
    expect(isObjectAt(object, { apiVersion: 'v1', kind: 'ConfigMap', namespace: '', name: 'c' })).toBe(false);
  });
});
