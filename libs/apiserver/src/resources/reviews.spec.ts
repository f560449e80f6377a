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

  it('deny every access when started with allowAll false', async () => {
    running = await startServer({ authorization: { allowAll: false } });
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
});
