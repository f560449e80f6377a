import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { compileCelPolicyException } from '../exceptions/compile-exception';
import type { CelPolicyContext } from '../evaluate/input';
import { compileDeletingPolicy, deletingPolicyErrors } from './compile';
import { evaluateDeletingPolicy, type DeletingPolicyInput } from './evaluate';
import { DeletingPolicyError } from './policy-error';
import { executionTime, nextExecutionTime } from './schedule';
import type { DeletingPolicySpec } from './types';

const PODS = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };

function dpol(name: string, spec: DeletingPolicySpec, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: spec as unknown as JsonObject,
  } as KubeObject;
}

function pod(name: string, namespace: string, labels: Record<string, string> = {}): DeletingPolicyInput {
  return {
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } } as KubeObject,
    resource: { group: '', version: 'v1', resource: 'pods' },
  };
}

const context: CelPolicyContext = { ports: {} };

describe('deletingPolicyErrors', () => {
  it('accepts a valid policy', () => {
    expect(
      deletingPolicyErrors(
        dpol('ok', {
          schedule: '*/5 * * * *',
          matchConstraints: PODS,
          deletionPropagationPolicy: 'Orphan',
          variables: [{ name: 'ns', expression: 'object.metadata.namespace' }],
          conditions: [{ name: 'in-test', expression: 'variables.ns == "test"' }],
        }),
      ),
    ).toEqual([]);
  });

  it('names every field that is wrong', () => {
    const errors = deletingPolicyErrors(
      dpol('bad', {
        schedule: 'every minute',
        deletionPropagationPolicy: 'Sometimes' as never,
        variables: [{ name: 'a-b', expression: 'object.metadata.name' }],
        conditions: [
          { name: 'one', expression: 'object.metadata.name ==' },
          { name: 'two', expression: 'variables.missing == 1' },
          { name: 'three', expression: '"text"' },
          { name: 'four', expression: 'authorizer.group("").resource("pods").check("list").allowed()' },
        ],
      }),
    );
    const fields = errors.map((error) => error.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'spec.schedule',
        'spec.matchConstraints',
        'spec.deletionPropagationPolicy',
        'spec.variables[0].name',
        'spec.conditions[0].expression',
        'spec.conditions[1].expression',
        'spec.conditions[2].expression',
        'spec.conditions[3].expression',
      ]),
    );
    expect(errors.find((e) => e.field === 'spec.conditions[1].expression')?.message).toContain("'missing'");
  });

  it('requires a schedule and refuses other kinds', () => {
    expect(deletingPolicyErrors(dpol('x', { matchConstraints: PODS }))).toEqual([
      { field: 'spec.schedule', message: 'Required value' },
    ]);
    const vpol = { ...dpol('x', { schedule: '@hourly', matchConstraints: PODS }), kind: 'ValidatingPolicy' };
    expect(deletingPolicyErrors(vpol)[0]?.field).toBe('kind');
    expect(() => compileDeletingPolicy(dpol('x', { matchConstraints: PODS }))).toThrow(DeletingPolicyError);
  });
});

describe('evaluateDeletingPolicy', () => {
  const byName = compileDeletingPolicy(
    dpol('by-name', {
      schedule: '*/1 * * * *',
      matchConstraints: PODS,
      variables: [{ name: 'name', expression: 'object.metadata.name' }],
      conditions: [
        { name: 'ns', expression: 'object.metadata.namespace == "test"' },
        { name: 'name', expression: 'variables.name == "nginx-1"' },
      ],
    }),
  );

  it('deletes what matches when every condition holds, keeps the rest', async () => {
    expect(await evaluateDeletingPolicy(byName, pod('nginx-1', 'test'), context)).toEqual({ result: 'delete' });
    expect(await evaluateDeletingPolicy(byName, pod('nginx-2', 'test'), context)).toEqual({
      result: 'keep',
      reason: 'conditions',
    });
    const deployment: DeletingPolicyInput = {
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx-1', namespace: 'test' } },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    };
    expect(await evaluateDeletingPolicy(byName, deployment, context)).toEqual({ result: 'keep', reason: 'unmatched' });
  });

  it('matches whatever the rules list as operations, and honours the object selector', async () => {
    const selected = compileDeletingPolicy(
      dpol('selected', {
        schedule: '@hourly',
        matchConstraints: { ...PODS, objectSelector: { matchExpressions: [{ key: 'expired', operator: 'Exists' }] } },
      }),
    );
    expect(await evaluateDeletingPolicy(selected, pod('a', 'x', { expired: 'yes' }), context)).toEqual({
      result: 'delete',
    });
    expect((await evaluateDeletingPolicy(selected, pod('b', 'x'), context)).result).toBe('keep');
  });

  it('reports a condition that errors, unless another is false', async () => {
    const failing = compileDeletingPolicy(
      dpol('failing', {
        schedule: '@hourly',
        matchConstraints: PODS,
        conditions: [
          { name: 'boom', expression: 'object.spec.missing == 1' },
          { name: 'ns', expression: 'object.metadata.namespace == "test"' },
        ],
      }),
    );
    const error = await evaluateDeletingPolicy(failing, pod('a', 'test'), context);
    expect(error.result).toBe('error');
    expect(error.result === 'error' && error.error).toContain("condition 'boom'");
    expect(await evaluateDeletingPolicy(failing, pod('a', 'other'), context)).toEqual({
      result: 'keep',
      reason: 'conditions',
    });
  });

  it('keeps a namespaced policy inside its namespace', async () => {
    const local = compileDeletingPolicy(dpol('local', { schedule: '@hourly', matchConstraints: PODS }, 'team-a'));
    expect(local.namespace).toBe('team-a');
    expect(await evaluateDeletingPolicy(local, pod('a', 'team-a'), context)).toEqual({ result: 'delete' });
    expect(await evaluateDeletingPolicy(local, pod('a', 'team-b'), context)).toEqual({
      result: 'keep',
      reason: 'namespace',
    });
  });

  it('keeps objects a PolicyException naming the policy covers', async () => {
    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'keep-nginx-1', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'by-name', kind: 'DeletingPolicy' }],
        matchConditions: [{ name: 'one', expression: 'object.metadata.name == "nginx-1"' }],
      },
    } as unknown as KubeObject);
    const withException = { ...context, exceptions: [exception] };
    expect(await evaluateDeletingPolicy(byName, pod('nginx-1', 'test'), withException)).toEqual({
      result: 'keep',
      reason: 'exception',
      exceptions: ['kyverno/keep-nginx-1'],
    });
  });

  it('reads the resource library through the ports', async () => {
    const lookup = compileDeletingPolicy(
      dpol('lookup', {
        schedule: '@hourly',
        matchConstraints: PODS,
        conditions: [
          { name: 'flag', expression: 'resource.Get("v1", "configmaps", "default", "flags").data.remove == "yes"' },
        ],
      }),
    );
    const flags = (remove: string): CelPolicyContext => ({
      ports: {
        resources: {
          get: () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flags' }, data: { remove } }),
          list: () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [] }),
        } as never,
      },
    });
    expect(await evaluateDeletingPolicy(lookup, pod('a', 'x'), flags('yes'))).toEqual({ result: 'delete' });
    expect((await evaluateDeletingPolicy(lookup, pod('a', 'x'), flags('no'))).result).toBe('keep');
  });
});

describe('schedule', () => {
  const every5 = compileDeletingPolicy(dpol('every5', { schedule: '*/5 * * * *', matchConstraints: PODS }));

  it('gives the next cron slot after a time', () => {
    expect(nextExecutionTime(every5, new Date('2026-01-01T10:02:30Z'))?.toISOString()).toBe('2026-01-01T10:05:00.000Z');
    expect(nextExecutionTime(every5, new Date('2026-01-01T10:05:00Z'))?.toISOString()).toBe('2026-01-01T10:10:00.000Z');
  });

  it('is due after the last execution, or after creation when it never ran', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    expect(executionTime(every5, { lastExecutionTime: '2026-01-01T11:00:00Z' }, undefined, now)?.toISOString()).toBe(
      '2026-01-01T11:05:00.000Z',
    );
    expect(executionTime(every5, {}, '2026-01-01T11:57:00Z', now)?.toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });
});
