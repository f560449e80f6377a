import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';

let running: Running | undefined;
afterEach(async () => {
  await running?.server.stop();
  running = undefined;
});

const SAR = {
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SubjectAccessReview',
  spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
};

describe('access reviews', () => {
  it('allow by default, are answered with the review and never stored', async () => {
    running = await startServer();
    const created = await running.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', SAR);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'SubjectAccessReview', spec: SAR.spec, status: { allowed: true } });
    const listed = await running.request('GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews');
    expect(listed.status).toBe(405);
  });

  it('deny every access in authorization mode AlwaysDeny', async () => {
    running = await startServer({ authorization: { mode: 'AlwaysDeny' } });
    const created = await running.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', SAR);
    expect(created.body.status).toMatchObject({ allowed: false, denied: true });
  });

  it('SelfSubjectReview reports the impersonated user', async () => {
    running = await startServer();
    const response = await fetch(`${running.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Impersonate-User': 'system:serviceaccount:ns:robot',
        'Impersonate-Group': 'team',
      },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    expect(((await response.json()) as { status: unknown }).status).toEqual({
      userInfo: { username: 'system:serviceaccount:ns:robot', groups: ['team', 'system:authenticated'] },
    });
  });

  it('refuse a SubjectAccessReview naming nobody', async () => {
    running = await startServer();
    const created = await running.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      ...SAR,
      spec: { resourceAttributes: { verb: 'get' } },
    });
    expect(created.status).toBe(400);
    expect(created.body.message).toContain('at least one of user or group must be specified');
  });

  describe('in authorization mode RBAC', () => {
    const review = (spec: object) =>
      running!.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { ...SAR, spec });
    const rbac = (object: object) => running!.server.create(object as never);
    const allowed = async (spec: object) => ((await review(spec)).body.status as { allowed?: boolean }).allowed;

    it("answer from the bindings whose subjects match, a service account's in its namespace", async () => {
      running = await startServer({ authorization: { mode: 'RBAC' } });
      rbac({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'deployers', namespace: 'default' },
        rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'update'] }],
      });
      rbac({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'bot-deploys', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployers' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }],
      });
      const bot = 'system:serviceaccount:default:bot';
      const asked = (verb: string, namespace = 'default') =>
        review({ user: bot, resourceAttributes: { group: 'apps', resource: 'deployments', namespace, verb } });
      expect((await asked('create')).body.status).toEqual({
        allowed: true,
        reason:
          'RBAC: allowed by RoleBinding "bot-deploys/default" of Role "deployers" to ServiceAccount "bot/default"',
      });
      expect((await asked('delete')).body.status).toEqual({ allowed: false });
      expect((await asked('create', 'other')).body.status).toEqual({ allowed: false });
    });

    it("let kubeadm's admin group and system:masters do anything", async () => {
      running = await startServer({ authorization: { mode: 'RBAC' } });
      const anything = { resourceAttributes: { group: 'x', resource: 'y', verb: 'escalate' } };
      expect(await allowed({ user: 'admin', groups: ['kubeadm:cluster-admins'], ...anything })).toBe(true);
      expect(await allowed({ user: 'root', groups: ['system:masters'], ...anything })).toBe(true);
      expect(await allowed({ user: 'nobody', ...anything })).toBe(false);
    });

    it('let every authenticated user read discovery and public info and review itself, nothing more', async () => {
      running = await startServer({ authorization: { mode: 'RBAC' } });
      const user = { user: 'dana', groups: ['system:authenticated'] };
      const reading = (path: string) => allowed({ ...user, nonResourceAttributes: { path, verb: 'get' } });
      expect(await reading('/apis/apps/v1')).toBe(true);
      expect(await reading('/version')).toBe(true);
      expect(await reading('/metrics')).toBe(false);
      const selfReview = { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', verb: 'create' };
      expect(await allowed({ ...user, resourceAttributes: selfReview })).toBe(true);
      expect(await allowed({ ...user, resourceAttributes: { resource: 'pods', verb: 'list' } })).toBe(false);
      expect(await allowed({ user: 'dana', resourceAttributes: selfReview })).toBe(false);
    });
  });
});
