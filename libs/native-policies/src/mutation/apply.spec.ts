import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  applyMutation,
  builtinShape,
  compileMutation,
  isCompiledMutation,
  MutationError,
  type CompiledMutation,
  type MutationContext,
  type MutationSpec,
} from '../index';
import { toCel } from '@edict/cel';

const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'app', image: 'nginx', env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'proxy' },
        ],
      },
    },
  },
};

function compiled(spec: MutationSpec): CompiledMutation {
  const result = compileMutation(spec, 'spec.mutations[0]', { variables: { params: false, authorizer: false } });
  if (!isCompiledMutation(result)) throw new Error(JSON.stringify(result));
  return result;
}

const apply = (expression: string, object: JsonObject = deployment, context: MutationContext = {}) =>
  applyMutation(
    compiled({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }),
    { object: toCel(object) },
    object,
    context,
  );

const patch = (expression: string, object: JsonObject = deployment) =>
  applyMutation(compiled({ patchType: 'JSONPatch', jsonPatch: { expression } }), { object: toCel(object) }, object);

async function failure(run: Promise<unknown>): Promise<MutationError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof MutationError) return error;
    throw error;
  }
  throw new Error('the mutation applied');
}

describe('compileMutation', () => {
  const errors = (spec: unknown) => {
    const result = compileMutation(spec, 'spec.mutations[1]', { variables: { params: false, authorizer: true } });
    return isCompiledMutation(result) ? [] : result.map((e) => `${e.field}: ${e.message}`);
  };

  it('names the field of what is missing or wrong', () => {
    expect(errors({})).toEqual(['spec.mutations[1].patchType: Required value']);
    expect(errors({ patchType: 'Merge' })[0]).toContain('spec.mutations[1].patchType: Unsupported value: "Merge"');
    expect(errors({ patchType: 'JSONPatch' })[0]).toContain('spec.mutations[1].jsonPatch: Required value');
    expect(errors({ patchType: 'JSONPatch', jsonPatch: { expression: ' ' } })).toEqual([
      'spec.mutations[1].jsonPatch.expression: Required value',
    ]);
    expect(
      errors({ patchType: 'JSONPatch', jsonPatch: { expression: '[]' }, applyConfiguration: { expression: 'x' } })[0],
    ).toContain('spec.mutations[1].applyConfiguration: Forbidden');
  });

  it('checks the result type of each patch type', () => {
    expect(errors({ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "{'a': 1}" } })[0]).toContain(
      'compilation failed: expression must evaluate to Object',
    );
    expect(errors({ patchType: 'JSONPatch', jsonPatch: { expression: "'x'" } })[0]).toContain(
      'expression must evaluate to list<JSONPatch>',
    );
    expect(errors({ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } })).toEqual([]);
  });
});

describe('ApplyConfiguration', () => {
  it('merges maps field by field and leaves the input untouched', async () => {
    const before = JSON.stringify(deployment);
    const out = await apply("Object{metadata: Object.metadata{labels: {'team': 'a'}}, spec: Object.spec{replicas: 3}}");
    expect(out.metadata).toEqual({ name: 'web', labels: { app: 'web', team: 'a' } });
    expect((out.spec as JsonObject).replicas).toBe(3);
    expect((out.spec as JsonObject).template).toEqual((deployment.spec as JsonObject).template);
    expect(JSON.stringify(deployment)).toBe(before);
  });

  it('removes fields set to null', async () => {
    const out = await apply('Object{metadata: Object.metadata{labels: null}}');
    expect(out.metadata).toEqual({ name: 'web' });
  });

  it('replaces lists whole without a schema, as Kyverno CLI does', async () => {
    const out = await apply(
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'app', image: 'nginx:2'}]}}}}",
    );
    const containers = ((out.spec as JsonObject).template as JsonObject).spec as JsonObject;
    expect(containers.containers).toEqual([{ name: 'app', image: 'nginx:2' }]);
  });

  it('merges map lists by key with the built-in schema', async () => {
    const out = await apply(
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'app', image: 'nginx:2', env: [Object.spec.template.spec.containers.env{name: 'B', value: '2'}]}, Object.spec.template.spec.containers{name: 'new', image: 'x'}]}}}}",
      deployment,
      { shape: builtinShape('apps/v1', 'Deployment') },
    );
    const spec = ((out.spec as JsonObject).template as JsonObject).spec as JsonObject;
    expect(spec.containers).toEqual([
      {
        name: 'app',
        image: 'nginx:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      { name: 'sidecar', image: 'proxy' },
      { name: 'new', image: 'x' },
    ]);
  });

  it('refuses to set atomic parts the schema knows', async () => {
    const error = await failure(
      apply("Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'a': 'b'}}}}", deployment, {
        shape: builtinShape('apps/v1', 'Deployment'),
      }),
    );
    expect(error.message).toContain('spec.mutations[0].applyConfiguration.expression:');
    expect(error.message).toContain('may not mutate atomic arrays, maps or structs: .spec.selector');
  });

  it('checks the type names of nested objects', async () => {
    const error = await failure(apply('Object{spec: Object.spec{selector: Object.spec.wrong{}}}'));
    expect(error.message).toContain('type mismatch: unexpected type name "Object.spec.wrong"');
  });

  it('reports evaluation errors with the expression', async () => {
    const error = await failure(apply('Object{spec: Object.spec{replicas: object.spec.missing}}'));
    expect(error.message).toBe(
      "spec.mutations[0].applyConfiguration.expression: expression 'Object{spec: Object.spec{replicas: object.spec.missing}}' resulted in error: No such key: missing (at character 48)",
    );
  });
});

describe('JSONPatch', () => {
  it('applies RFC 6902 operations with escaped keys', async () => {
    const out = await patch(
      "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: 'a'}, JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}, JSONPatch{op: 'remove', path: '/spec/template/spec/containers/1'}]",
    );
    expect(out.metadata).toEqual({ name: 'web', labels: { app: 'web', 'example.com/team': 'a' } });
    expect((out.spec as JsonObject).replicas).toBe(2);
    expect((((out.spec as JsonObject).template as JsonObject).spec as JsonObject).containers).toHaveLength(1);
  });

  it('keeps the object when a test operation fails', async () => {
    const out = await patch(
      "[JSONPatch{op: 'test', path: '/spec/replicas', value: 5}, JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}]",
    );
    expect(out).toEqual(deployment);
  });

  it('fails on paths that do not exist and on unknown operations', async () => {
    expect((await failure(patch("[JSONPatch{op: 'add', path: '/spec/missing/x', value: 1}]"))).message).toContain(
      'operation 0 (add "/spec/missing/x")',
    );
    expect((await failure(patch("[JSONPatch{op: 'remove', path: '/metadata/annotations'}]"))).message).toContain(
      'operation 0',
    );
    expect((await failure(patch("[JSONPatch{op: 'merge', path: '/spec'}]"))).message).toContain(
      'unexpected kind: "merge"',
    );
    expect((await failure(patch("[JSONPatch{op: 'add', path: '/__proto__/x', value: 1}]"))).message).toContain(
      'JSONPatch:',
    );
  });

  it('bounds the number of operations', async () => {
    const error = await failure(
      applyMutation(
        compiled({
          patchType: 'JSONPatch',
          jsonPatch: {
            expression:
              "[JSONPatch{op: 'test', path: '/kind', value: 'Deployment'}, JSONPatch{op: 'test', path: '/kind', value: 'Deployment'}]",
          },
        }),
        { object: toCel(deployment) },
        deployment,
        { limits: { maxOperations: 1 } },
      ),
    );
    expect(error.message).toContain('more than the 1 a mutation may apply');
  });

  it('bounds the size of the patched object', async () => {
    const error = await failure(
      applyMutation(
        compiled({
          patchType: 'JSONPatch',
          jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/data', value: 'x'}]" },
        }),
        { object: toCel(deployment) },
        deployment,
        { limits: { maxObjectBytes: 100 } },
      ),
    );
    expect(error.message).toContain('more than the 100 a mutation may produce');
  });

  it('refuses a patched object without kind', async () => {
    expect((await failure(patch("[JSONPatch{op: 'remove', path: '/kind'}]"))).message).toContain('kind is missing');
  });
});
