import { describe, expect, it } from 'vitest';
import { imageValidatingPolicy, matching } from '../testing';
import { compileImageValidatingPolicy } from './compile';
import { policyRegistryAccess, scopeSecretReferences } from './credentials';
import type { ImageValidatingPolicySpec } from './types';

describe('credentials.secrets references (Kyverno ParseSecretReference / ScopeSecretReferences)', () => {
  it('keeps a namespaced policy to its own namespace', () => {
    expect(scopeSecretReferences(['pull', 'tenant-a/second', '/third'], 'tenant-a')).toEqual([
      'tenant-a/pull',
      'tenant-a/second',
      'tenant-a/third',
    ]);
    expect(() => scopeSecretReferences(['tenant-b/pull'], 'tenant-a')).toThrow(
      'secret reference "tenant-b/pull" uses namespace "tenant-b" instead of policy namespace "tenant-a"',
    );
    expect(() => scopeSecretReferences(['kyverno/pull'], 'tenant-a')).toThrow('instead of policy namespace');
  });

  it('refuses malformed names and namespaces', () => {
    for (const bad of ['tenant-a/name/extra', 'tenant-a//name', 'tenant-a/UPPER', 'tenant-a/name with spaces']) {
      expect(() => scopeSecretReferences([bad], 'tenant-a')).toThrow('invalid name');
    }
    expect(() => scopeSecretReferences(['tenant-a/'], 'tenant-a')).toThrow('has an empty name');
    expect(() => scopeSecretReferences(['pull'], 'tenant/a')).toThrow('policy namespace "tenant/a" is invalid');
  });

  it("leaves a cluster policy's bare names to the controller's namespace and keeps namespace/name", () => {
    expect(scopeSecretReferences(['pull', 'kyverno/other'], undefined)).toEqual(['pull', 'kyverno/other']);
    expect(() => scopeSecretReferences(['Bad_NS/pull'], undefined)).toThrow('invalid namespace');
  });

  it("gives the evaluation a namespaced policy's references scoped, and its error for a foreign one", () => {
    const spec = (secrets: string[]): ImageValidatingPolicySpec => ({
      matchConstraints: matching('', 'v1', 'pods'),
      credentials: { secrets, allowInsecureRegistry: true },
      validations: [{ expression: 'true' }],
    });
    const namespaced = (secrets: string[]) =>
      compileImageValidatingPolicy(imageValidatingPolicy('n', spec(secrets), 'tenant-a'));
    expect(policyRegistryAccess(namespaced(['pull']))).toEqual({
      secrets: ['tenant-a/pull'],
      allowInsecure: true,
      namespace: 'tenant-a',
    });
    expect(() => policyRegistryAccess(namespaced(['tenant-b/pull']))).toThrow('instead of policy namespace');
    expect(policyRegistryAccess(compileImageValidatingPolicy(imageValidatingPolicy('c', spec(['pull']))))).toEqual({
      secrets: ['pull'],
      allowInsecure: true,
    });
  });
});
