// Each request authorized by RBAC, as kube-apiserver does under --authorization-mode=RBAC.
import 'reflect-metadata';
import { request as httpsRequest } from 'node:https';
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterCa, type CertifiedKey, type ClusterCa } from '../tls/cluster-ca';
import { requestAttributes } from './request-authorization';
import { InMemoryApiServer } from '../api-server';

describe('requestAttributes', () => {
  const query = (text = '') => new URLSearchParams(text);

  it('reads group, namespace, resource, name, subresource and verb off the path and method', () => {
    expect(requestAttributes('GET', '/apis/apps/v1/namespaces/default/unknown', query())).toEqual({
      resource: { group: 'apps', resource: 'unknown', subresource: '', namespace: 'default', name: '', verb: 'list' },
    });
    expect(requestAttributes('PUT', '/api/v1/namespaces/ns/pods/p/status', query()).resource).toMatchObject({
      group: '',
      resource: 'pods',
      name: 'p',
      subresource: 'status',
      verb: 'update',
    });
    expect(requestAttributes('GET', '/api/v1/pods', query('watch=true')).resource).toMatchObject({
      namespace: '',
      verb: 'watch',
    });
    expect(requestAttributes('DELETE', '/api/v1/namespaces/ns/configmaps', query()).resource?.verb).toBe(
      'deletecollection',
    );
  });

  it('treats a namespace as the object of /namespaces/<name>, its status and finalize', () => {
    expect(requestAttributes('GET', '/api/v1/namespaces/ns', query()).resource).toMatchObject({
      resource: 'namespaces',
      namespace: 'ns',
      name: 'ns',
      verb: 'get',
    });
    expect(requestAttributes('PUT', '/api/v1/namespaces/ns/finalize', query()).resource).toMatchObject({
      resource: 'namespaces',
      subresource: 'finalize',
    });
  });

  it('authorizes a list by exact name field selector as for that name', () => {
    expect(
      requestAttributes('GET', '/api/v1/namespaces/ns/secrets', query('fieldSelector=metadata.name%3Ds')).resource,
    ).toMatchObject({ name: 's', verb: 'list' });
  });

  it('names discovery and health paths as non-resource requests', () => {
    expect(requestAttributes('GET', '/apis/apps/v1', query())).toEqual({
      nonResource: { path: '/apis/apps/v1', verb: 'get' },
    });
    expect(requestAttributes('GET', '/healthz', query()).nonResource?.path).toBe('/healthz');
  });
});

let server: InMemoryApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function call(
  url: string,
  ca: ClusterCa,
  client: CertifiedKey,
  method: string,
  path: string,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: JsonObject }>((resolve, reject) => {
    const req = httpsRequest(
      `${url}${path}`,
      { method, ca: ca.certificatePem, cert: client.certPem, key: client.keyPem, headers },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as JsonObject) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the API server under RBAC', () => {
  it('answers 403 with kube message until a role grants the request, then serves it; the admin is never refused', async () => {
    const ca = await createClusterCa();
    server = new InMemoryApiServer({ ca, authorization: { mode: 'RBAC' } });
    const { url } = await server.start();
    const admin = await ca.client({ username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] });
    const robot = await ca.client({ username: 'system:serviceaccount:ns:robot', groups: ['system:serviceaccounts'] });

    expect((await call(url, ca, admin, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    const refused = await call(url, ca, robot, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(refused).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'configmaps is forbidden: User "system:serviceaccount:ns:robot" cannot list resource "configmaps" in API group "" in the namespace "default"',
        reason: 'Forbidden',
        details: { kind: 'configmaps' },
        code: 403,
      },
    });
    // Unknown resources are refused before they are found missing, as kube's filters run first.
    const unknown = await call(url, ca, robot, 'GET', '/apis/apps/v1/namespaces/default/unknown/x');
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe(
      'unknown.apps "x" is forbidden: User "system:serviceaccount:ns:robot" cannot get resource "unknown" in API group "apps" in the namespace "default"',
    );
    // Discovery stays open to every authenticated user (kube's system:discovery role).
    expect((await call(url, ca, robot, 'GET', '/api/v1')).status).toBe(200);

    server.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'read-configmaps', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    server.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'robot', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns' }],
    });
    expect((await call(url, ca, robot, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect((await call(url, ca, robot, 'GET', '/api/v1/namespaces/kube-system/configmaps')).status).toBe(403);
  });

  it('lets only users allowed to impersonate act as someone else, who is then authorized in turn', async () => {
    const ca = await createClusterCa();
    server = new InMemoryApiServer({ ca, authorization: { mode: 'RBAC' } });
    const { url } = await server.start();
    const admin = await ca.client({ username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] });
    const robot = await ca.client({ username: 'robot', groups: [] });
    const asChip = { 'Impersonate-User': 'chip' };

    const denied = await call(url, ca, robot, 'GET', '/api/v1/namespaces', asChip);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'users "chip" is forbidden: User "robot" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const asked = await call(url, ca, admin, 'GET', '/api/v1/namespaces', asChip);
    expect(asked.status).toBe(403);
    expect(asked.body.message).toContain('User "chip" cannot list resource "namespaces"');
  });
});
