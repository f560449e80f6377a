import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { EvaluationContext } from './context';
import { serviceAccountOf } from './request-context';
import { substituteVariables } from './substitute';

const pod = (name: string, namespace?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: namespace === undefined ? { name } : { name, namespace },
});

describe('EvaluationContext.forRequest without an admission request', () => {
  it('CREATE: object, namespace and operation only', () => {
    const ctx = EvaluationContext.forRequest({ operation: 'CREATE', resource: pod('web', 'prod') });
    expect(ctx.document()).toEqual({ request: { object: pod('web', 'prod'), namespace: 'prod', operation: 'CREATE' } });
    expect(() => ctx.query('request.name')).toThrow('Unknown key "name"');
    expect(() => ctx.query('serviceAccountName')).toThrow('Unknown key "serviceAccountName"');
  });

  it('UPDATE: object and old object', () => {
    const ctx = EvaluationContext.forRequest({
      operation: 'UPDATE',
      resource: pod('web', 'prod'),
      oldResource: pod('old', 'prod'),
    });
    expect(ctx.query('[request.object.metadata.name, request.oldObject.metadata.name, request.operation]')).toEqual([
      'web',
      'old',
      'UPDATE',
    ]);
  });

  it('DELETE: the resource is the old object and request.object reads it', () => {
    const ctx = EvaluationContext.forRequest({ operation: 'DELETE', resource: pod('gone', 'prod') });
    expect(ctx.document()).toEqual({
      request: { oldObject: pod('gone', 'prod'), namespace: 'prod', operation: 'DELETE' },
    });
    expect(ctx.operation()).toBe('DELETE');
    expect(substituteVariables('{{ request.object.metadata.name }}', ctx)).toBe('gone');
  });

  it('uses "" as namespace for cluster-scoped resources', () => {
    const ctx = EvaluationContext.forRequest({ operation: 'CREATE', resource: pod('node') });
    expect(ctx.query('request.namespace')).toBe('');
  });

  it('adds the user, omitting empty fields, and the service account', () => {
    const ctx = EvaluationContext.forRequest({
      operation: 'CREATE',
      resource: pod('web', 'prod'),
      user: {
        roles: ['prod:dev'],
        clusterRoles: [],
        userInfo: { username: 'system:serviceaccount:ci:deployer', groups: ['system:serviceaccounts'] },
      },
    });
    expect(ctx.query('request.roles')).toEqual(['prod:dev']);
    expect(() => ctx.query('request.clusterRoles')).toThrow('Unknown key');
    expect(ctx.query('request.userInfo')).toEqual({
      username: 'system:serviceaccount:ci:deployer',
      groups: ['system:serviceaccounts'],
    });
    expect(ctx.query('[serviceAccountName, serviceAccountNamespace]')).toEqual(['deployer', 'ci']);
  });
});

describe('EvaluationContext.forRequest with an admission request', () => {
  const admissionRequest = {
    uid: '123',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: 'web',
    namespace: 'prod',
    operation: 'UPDATE',
    userInfo: { username: 'alice', groups: ['devs'] },
    object: pod('web', 'prod'),
    oldObject: pod('web', 'prod'),
    dryRun: false,
  };

  it('exposes the request as-is plus user data', () => {
    const ctx = EvaluationContext.forRequest({
      operation: 'UPDATE',
      resource: pod('web', 'prod'),
      user: { clusterRoles: ['admin'], userInfo: { username: 'alice', groups: ['devs'] } },
      admissionRequest,
    });
    expect(ctx.query('request.kind')).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(ctx.query('[request.name, request.namespace, request.operation, request.dryRun]')).toEqual([
      'web',
      'prod',
      'UPDATE',
      false,
    ]);
    expect(ctx.query('request.clusterRoles')).toEqual(['admin']);
    expect(ctx.query('request.userInfo.groups')).toEqual(['devs']);
    expect(ctx.query('[serviceAccountName, serviceAccountNamespace]')).toEqual(['', '']);
    expect(ctx.operation()).toBe('UPDATE');
  });

  it('takes the service account from the admission user when no user is given', () => {
    const ctx = EvaluationContext.forRequest({
      operation: 'DELETE',
      admissionRequest: {
        ...admissionRequest,
        operation: 'DELETE',
        object: null,
        userInfo: { username: 'system:serviceaccount:kube-system:gc' },
      },
    });
    expect(ctx.query('[serviceAccountName, serviceAccountNamespace]')).toEqual(['gc', 'kube-system']);
    expect(substituteVariables('{{ request.object.metadata.name }}', ctx)).toBe('web');
  });

  it('gives the document adding each part in turn gives, keys in the same order', () => {
    const user = {
      roles: ['prod:dev'],
      userInfo: { username: 'system:serviceaccount:ci:deployer', extra: { scope: ['a'] } },
    };
    const request = { operation: 'CREATE' as const, resource: pod('web', 'prod'), user, admissionRequest };
    const built = EvaluationContext.forRequest(request);

    const stepwise = new EvaluationContext();
    stepwise.add('request', admissionRequest);
    stepwise.add('request', { roles: user.roles, userInfo: user.userInfo });
    stepwise.add('serviceAccountName', 'deployer');
    stepwise.add('serviceAccountNamespace', 'ci');
    stepwise.setOperation('UPDATE');

    expect(built.document()).toEqual(stepwise.document());
    expect(Object.keys(built.document())).toEqual(Object.keys(stepwise.document()));
    const requestKeys = (ctx: EvaluationContext) => Object.keys(ctx.document()['request'] as object);
    expect(requestKeys(built)).toEqual(requestKeys(stepwise));
    expect(built.operation()).toBe('UPDATE');
    expect(admissionRequest.userInfo).toEqual({ username: 'alice', groups: ['devs'] }); // not modified
  });
});

describe('serviceAccountOf', () => {
  it.each([
    ['system:serviceaccount:ns:name', 'name', 'ns'],
    ['system:serviceaccount:ns:name:extra', 'name', 'ns'],
    ['system:serviceaccount:', '', ''],
    ['alice', '', ''],
    ['system:serviceaccount:nocolon', '', ''],
    ['system:serviceaccount::name', 'name', ''],
    ['system:serviceaccount:ns:', '', 'ns'],
    // Kyverno cuts the prefix by length without checking it.
    ['kubernetes-admin-user-xx:ns:name', 'ns', 'xx'],
  ])('%s → name %s, namespace %s', (username, name, namespace) => {
    expect(serviceAccountOf(username)).toEqual({ name, namespace });
  });
});
