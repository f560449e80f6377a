import { describe, expect, it } from 'vitest';
import { compileCel, CelCompileError } from '../compile';
import { evaluateKyverno } from '@edict/cel/testing';

const kyverno = { params: false, authorizer: false, kyverno: true } as const;

describe("Kyverno's CEL environment", () => {
  it('declares the libraries only when asked (classic validate.cel and VAP stay Kubernetes-only)', () => {
    expect(() => compileCel('sha256("a") != ""', { params: false, authorizer: false }, 'bool')).toThrow(
      CelCompileError,
    );
    expect(() =>
      compileCel('http.Get("https://x.test") != null', { params: false, authorizer: false }, 'bool'),
    ).toThrow(CelCompileError);
    expect(compileCel('sha256("a") != ""', kyverno, 'bool').source).toBe('sha256("a") != ""');
  });

  it('type-checks library calls: a wrong overload is refused at compile time', () => {
    expect(() => compileCel('http.Get(1)', kyverno, 'any')).toThrow(/no matching overload/);
    expect(() => compileCel('resource.Get("v1", "configmaps", "name")', kyverno, 'any')).toThrow(
      /no matching overload/,
    );
    expect(() => compileCel('time.nope()', kyverno, 'any')).toThrow(/no matching overload/);
  });

  it("gives a namespaced policy Kyverno's namespaced resource overloads (no namespace argument)", () => {
    const namespaced = { ...kyverno, namespacedPolicy: true };
    expect(() => compileCel('resource.Get("v1", "configmaps", "name")', namespaced, 'any')).not.toThrow();
    expect(() => compileCel('resource.Get("v1", "configmaps", "ns", "name")', namespaced, 'any')).toThrow(
      /no matching overload/,
    );
  });

  it('evaluates pure functions without any port', async () => {
    // The well-known digest of the empty string.
    await expect(evaluateKyverno('md5("")')).resolves.toBe('d41d8cd98f00b204e9800998ecf8427e');
  });
});
