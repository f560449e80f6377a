import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { compileCel } from '../compile';
import { CelPortError, type CelGeneratorPort } from './ports';
import { kyvernoActivation } from './activation';

class RecordingGenerator implements CelGeneratorPort {
  readonly calls: { namespace: string; objects: readonly JsonObject[] }[] = [];
  constructor(private readonly refuse?: Error) {}
  apply(namespace: string, objects: readonly JsonObject[]): void {
    if (this.refuse) throw this.refuse;
    this.calls.push({ namespace, objects });
  }
}

function run(source: string, generator: CelGeneratorPort | undefined, policyNamespace?: string): unknown {
  const program = compileCel(
    source,
    {
      params: false,
      authorizer: false,
      kyverno: true,
      generator: true,
      namespacedPolicy: policyNamespace !== undefined,
    },
    'any',
  );
  return program.evaluate({
    object: { metadata: { name: 'team-a' } },
    oldObject: null,
    request: null,
    namespaceObject: null,
    variables: {},
    ...kyvernoActivation({ ...(generator ? { generator } : {}) }, policyNamespace ? { policyNamespace } : {}),
  });
}

describe('generator library', () => {
  it('hands the objects, as JSON, to the port with the namespace named, and answers true', () => {
    const port = new RecordingGenerator();
    const result = run(
      `generator.Apply(object.metadata.name, [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"n": dyn(3)}}])`,
      port,
    );
    expect(result).toBe(true);
    expect(port.calls).toEqual([
      {
        namespace: 'team-a',
        objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { n: 3 } }],
      },
    ]);
    run(`generator.apply("other", [])`, port);
    expect(port.calls[1]).toEqual({ namespace: 'other', objects: [] });
  });

  it('gives a namespaced policy an overload without a namespace: its own is used, another cannot be named', () => {
    const port = new RecordingGenerator();
    expect(run(`generator.Apply([{"kind": "ConfigMap"}])`, port, 'tenant')).toBe(true);
    expect(port.calls[0]?.namespace).toBe('tenant');
    expect(() =>
      compileCel(
        `generator.Apply("other", [{"kind": "ConfigMap"}])`,
        { params: false, authorizer: false, kyverno: true, generator: true, namespacedPolicy: true },
        'any',
      ),
    ).toThrow(/found no matching overload|no such overload|Apply/);
  });

  it('is not declared unless asked for (only GeneratingPolicies have it)', () => {
    expect(() =>
      compileCel(`generator.Apply("a", [])`, { params: false, authorizer: false, kyverno: true }, 'any'),
    ).toThrow(/generator/);
  });

  it('fails the expression when no port was given or the port refuses, wording a Forbidden as permission denied', () => {
    expect(() => run(`generator.Apply("a", [])`, undefined)).toThrow(/generator is not available/);
    expect(() =>
      run(`generator.Apply("a", [{"kind": "Secret"}])`, new RecordingGenerator(new CelPortError('no', 'Forbidden'))),
    ).toThrow(/failed to generate resources: permission denied: no/);
    expect(() =>
      run(`generator.Apply("a", [{"kind": "Secret"}])`, new RecordingGenerator(new Error('too many objects'))),
    ).toThrow(/failed to generate resources: too many objects/);
  });
});
