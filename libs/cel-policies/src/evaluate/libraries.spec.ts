import { describe, expect, it } from 'vitest';
import type { CelResourcePort } from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import type { ValidatingPolicySpec } from '../api/types';
import { compileValidatingPolicy } from '../compile/compile-policy';
import { inputFor, matching, pod, validatingPolicy } from '../testing';
import { evaluateValidatingPolicy } from './evaluate-policy';

/** A resource port over a few ConfigMaps, answering asynchronously as a cluster would. */
function configMaps(objects: Record<string, JsonObject>): CelResourcePort & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: async (target) => {
      asked.push(`${target.namespace}/${target.name}`);
      return objects[`${target.namespace}/${target.name}`] ?? null;
    },
    list: () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [] }),
    create: (_target, object) => object,
    toGVR: () => ({ group: '', version: 'v1', resource: 'configmaps' }),
  };
}

const registries = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'registries' },
  data: { allowed: 'corp.io/' },
};

describe("evaluateValidatingPolicy with Kyverno's libraries", () => {
  it('reads cluster objects through the resource port, in variables evaluated before the validation', async () => {
    const spec: ValidatingPolicySpec = {
      matchConstraints: matching('', 'v1', 'pods'),
      variables: [
        { name: 'cm', expression: "resource.Get('v1', 'configmaps', 'platform', 'registries')" },
        { name: 'prefix', expression: 'variables.cm.data.allowed' },
      ],
      validations: [
        { expression: 'object.spec.containers.all(c, c.image.startsWith(variables.prefix))', message: 'registry' },
      ],
    };
    const port = configMaps({ 'platform/registries': registries });
    const compiled = compileValidatingPolicy(validatingPolicy('registries', spec));
    const run = (image: string) =>
      evaluateValidatingPolicy(compiled, inputFor(pod('p', 'default', { containers: [{ name: 'c', image }] })), {
        ports: { resources: port },
      });
    expect((await run('corp.io/app:1'))?.rules[0]?.status).toBe('pass');
    expect((await run('docker.io/app:1'))?.rules[0]).toMatchObject({ status: 'fail', message: 'registry' });
    expect(port.asked).toEqual(['platform/registries', 'platform/registries']);
  });

  it('keeps a namespaced policy inside its namespace', async () => {
    const spec: ValidatingPolicySpec = {
      matchConstraints: matching('', 'v1', 'pods'),
      variables: [{ name: 'cm', expression: "resource.Get('v1', 'configmaps', 'registries')" }],
      validations: [{ expression: 'variables.cm != null' }],
    };
    const port = configMaps({ 'team-a/registries': registries });
    const compiled = compileValidatingPolicy(validatingPolicy('registries', spec, 'team-a'));
    const result = await evaluateValidatingPolicy(compiled, inputFor(pod('p', 'team-a', { containers: [] })), {
      ports: { resources: port },
    });
    expect(result?.rules[0]?.status).toBe('pass');
    expect(port.asked).toEqual(['team-a/registries']);
  });

  it('fails the expression when the port it needs is missing (never silently)', async () => {
    const spec: ValidatingPolicySpec = {
      matchConstraints: matching('', 'v1', 'pods'),
      validations: [{ expression: "resource.Get('v1', 'configmaps', 'x', 'y').data.k == 'v'" }],
    };
    const result = await evaluateValidatingPolicy(
      compileValidatingPolicy(validatingPolicy('no-port', spec)),
      inputFor(pod('p', 'default', { containers: [] })),
      { ports: {} },
    );
    expect(result?.rules[0]?.status).toBe('error');
  });

  it('type-checks library calls at compile time', () => {
    const spec: ValidatingPolicySpec = {
      matchConstraints: matching('', 'v1', 'pods'),
      validations: [{ expression: "resource.Get('v1') == null" }],
    };
    expect(() => compileValidatingPolicy(validatingPolicy('bad-call', spec))).toThrow(
      /spec\.validations\[0\]\.expression/,
    );
  });
});
