import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { checkCelTypes, formatCelIssues } from './check-types';
import { schemaType } from './schema-types';

/** A Deployment as its OpenAPI definitions declare it (the parts the cases use). */
const DEFINITIONS: Record<string, JsonObject> = {
  Deployment: {
    type: 'object',
    properties: {
      metadata: { $ref: '#/components/schemas/ObjectMeta' },
      spec: { $ref: '#/components/schemas/DeploymentSpec' },
    },
  },
  ObjectMeta: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      creationTimestamp: { type: 'string', format: 'date-time' },
    },
  },
  DeploymentSpec: {
    type: 'object',
    properties: {
      replicas: { type: 'integer', format: 'int32' },
      paused: { type: 'boolean' },
      template: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              containers: { type: 'array', items: { $ref: '#/components/schemas/Container' } },
            },
          },
        },
      },
      strategy: { type: 'object', properties: { maxSurge: { 'x-kubernetes-int-or-string': true } } },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  Container: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } },
};

const deployment = schemaType({ $ref: 'Deployment' }, (name) => DEFINITIONS[name]);
const check = (expression: string) =>
  formatCelIssues(expression, checkCelTypes(expression, { object: deployment, oldObject: deployment }));

describe('checkCelTypes', () => {
  it('accepts well-typed expressions, comprehensions and macros included', () => {
    for (const expression of [
      'object.spec.replicas > 1',
      'object.spec.replicas < 100 && object.spec.paused == false',
      "object.spec.template.spec.containers.all(c, c.image.startsWith('registry/'))",
      "object.metadata.labels['app'] == 'web' && has(object.metadata.labels.team)",
      'object.spec.replicas + 1 <= 10 && object.spec.replicas > 1.5',
      'size(object.spec.template.spec.containers) > 0',
    ]) {
      expect(check(expression), expression).toBe('');
    }
  });

  it("reports kube's type confusion: an operator without an overload for its operand types, at the operator", () => {
    expect(check("object.spec.replicas > '1'")).toBe(
      "ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n" +
        " | object.spec.replicas > '1'\n" +
        ' | .....................^',
    );
    expect(check("object.spec.replicas + 'x' == 1")).toContain(
      "found no matching overload for '_+_' applied to '(int, string)'",
    );
    expect(check('object.spec.paused && 1 == 1 || object.spec.replicas')).toContain(
      "found no matching overload for '_||_' applied to '(bool, int)'",
    );
  });

  it('reports an undefined field at its selection, and every issue of an expression in order', () => {
    expect(check('object.spec.nonExistingFirst > 1')).toBe(
      "ERROR: <input>:1:12: undefined field 'nonExistingFirst'\n" +
        ' | object.spec.nonExistingFirst > 1\n' +
        ' | ...........^',
    );
    const both = check("object.spec.replicas > '1' && object.spec.nonExisting == 1");
    expect(both.split('\n')).toHaveLength(6);
    expect(both.indexOf("'_>_'")).toBeLessThan(both.indexOf("undefined field 'nonExisting'"));
    expect(check('object.spec.template.spec.containers.exists(c, c.tag == "x")')).toContain("undefined field 'tag'");
  });

  it('stays silent where it cannot know: dyn operands, int-or-string, preserved fields, unknown variables, timestamps', () => {
    for (const expression of [
      "object.spec.strategy.maxSurge > '25%'",
      'object.spec.extra.anything.deeper == 1',
      "params.limit > 'x' && variables.v == 1 && request.userInfo.username == 2",
      "object.metadata.creationTimestamp > timestamp('2024-01-01T00:00:00Z')",
      'object.metadata.name == null',
      'object.spec.replicas > ',
      "object.?spec.nothing.orValue('') == 1",
    ]) {
      expect(check(expression), expression).toBe('');
    }
  });

  it('lets an embedded resource have apiVersion, kind and metadata without declaring them', () => {
    const embedded = schemaType(
      { type: 'object', properties: { spec: { type: 'object' } }, 'x-kubernetes-embedded-resource': true },
      () => undefined,
    );
    expect(checkCelTypes("object.metadata.name == 'x' && object.kind == 'Pod'", { object: embedded })).toEqual([]);
    expect(checkCelTypes('object.status == 1', { object: embedded })).toEqual([
      { offset: 6, message: "undefined field 'status'" },
    ]);
  });
});
