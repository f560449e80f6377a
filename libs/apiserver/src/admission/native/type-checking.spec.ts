import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '../../api-server';

const V1 = 'admissionregistration.k8s.io/v1';
const DEPLOYMENTS = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'] };

function policy(name: string, validations: JsonObject[], spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: V1,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [DEPLOYMENTS] }, validations, ...spec },
  };
}

function status(server: InMemoryApiServer, name: string): JsonObject {
  return server.get(V1, 'ValidatingAdmissionPolicy', name)?.status as JsonObject;
}

// The cases of kube's ValidatingAdmissionPolicy status controller test (TestTypeChecking).
describe('status.typeChecking of a ValidatingAdmissionPolicy', () => {
  it('is empty, with the generation observed, when every expression checks', () => {
    const server = new InMemoryApiServer();
    server.create(policy('replicated-deployment', [{ expression: 'object.spec.replicas > 1' }]));
    expect(status(server, 'replicated-deployment')).toEqual({ observedGeneration: 1, typeChecking: {} });
  });

  it("warns of a type confusion with kube's fieldRef and text, per kind", () => {
    const server = new InMemoryApiServer();
    server.create(
      policy('confused-deployment', [
        { expression: 'object.spec.replicas < 100' },
        { expression: "object.spec.replicas > '1'" },
      ]),
    );
    expect(status(server, 'confused-deployment').typeChecking).toEqual({
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[1].expression',
          warning:
            "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n" +
            " | object.spec.replicas > '1'\n" +
            ' | .....................^\n',
        },
      ],
    });
  });

  it('warns of each expression with issues, message expressions too, and of every issue of one expression', () => {
    const server = new InMemoryApiServer();
    server.create(
      policy('two', [
        { expression: 'object.spec.nonExistingFirst > 1' },
        { expression: "object.spec.replicas > '1' && object.spec.nonExisting == 1", messageExpression: 'object.nope' },
      ]),
    );
    const warnings = (status(server, 'two').typeChecking as { expressionWarnings: JsonObject[] }).expressionWarnings;
    expect(warnings.map((w) => w.fieldRef)).toEqual([
      'spec.validations[0].expression',
      'spec.validations[1].expression',
      'spec.validations[1].messageExpression',
    ]);
    expect(warnings[0].warning).toContain("undefined field 'nonExistingFirst'");
    expect(warnings[1].warning).toContain("found no matching overload for '_>_' applied to '(int, string)'");
    expect(warnings[1].warning).toContain("undefined field 'nonExisting'");
    expect(warnings[2].warning).toContain("undefined field 'nope'");
  });

  it('checks against each kind named (core kinds as /v1), and skips wildcards', () => {
    const server = new InMemoryApiServer();
    const rules = [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps', 'pods', '*'] },
      { apiGroups: ['*'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'] },
    ];
    server.create(
      policy('core', [{ expression: 'object.data.x == 1' }], { matchConstraints: { resourceRules: rules } }),
    );
    const [warning] = (status(server, 'core').typeChecking as { expressionWarnings: JsonObject[] }).expressionWarnings;
    expect(warning.warning).toBe(
      "/v1, Kind=ConfigMap: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'\n" +
        ' | object.data.x == 1\n' +
        ' | ..............^\n' +
        '\n' +
        "/v1, Kind=Pod: ERROR: <input>:1:7: undefined field 'data'\n" +
        ' | object.data.x == 1\n' +
        ' | ......^\n',
    );
    server.create(
      policy('wild', [{ expression: 'object.nothing' }], { matchConstraints: { resourceRules: [rules[1]] } }),
    );
    expect(status(server, 'wild')).toEqual({ observedGeneration: 1, typeChecking: {} });
  });

  it('types params by the paramKind, custom resources by their schema, and runs again only on a new generation', () => {
    const server = new InMemoryApiServer();
    server.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'limits.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Limit', plural: 'limits', singular: 'limit', listKind: 'LimitList' },
        scope: 'Cluster',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { max: { type: 'integer' } } },
            },
          },
        ],
      },
    });
    const paramKind = { apiVersion: 'example.com/v1', kind: 'Limit' };
    server.create(
      policy('params', [{ expression: "object.spec.replicas <= params.max && params.min == ''" }], { paramKind }),
    );
    const first = (status(server, 'params').typeChecking as { expressionWarnings: JsonObject[] }).expressionWarnings;
    expect(first).toHaveLength(1);
    expect(first[0].warning).toContain("undefined field 'min'");
    const stored = server.get(V1, 'ValidatingAdmissionPolicy', 'params')!;
    const fixed = server.update({
      ...stored,
      spec: { ...(stored.spec as JsonObject), validations: [{ expression: 'object.spec.replicas <= params.max' }] },
    });
    expect(fixed.status).toEqual({ observedGeneration: 2, typeChecking: {} });
  });
});
