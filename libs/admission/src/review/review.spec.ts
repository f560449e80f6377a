import { describe, expect, it } from 'vitest';
import { toResourceRequest, resolveResourceRequest } from '../request/to-resource-request';
import { podCreateReview } from '../testing/fixtures';
import { MAX_DEPTH, parseAdmissionReview } from './parse-review';
import { reviewResponse } from './response';

describe('parseAdmissionReview', () => {
  it('accepts the realistic Pod CREATE as a string, a Buffer or a parsed object', () => {
    const review = podCreateReview();
    for (const body of [JSON.stringify(review), Buffer.from(JSON.stringify(review)), review]) {
      const parsed = parseAdmissionReview(body);
      expect(parsed.ok && parsed.review.request.uid).toBe('3c1f4a9e-8b2d-4e6f-9a1c-5d7e8f9a0b1c');
    }
  });

  it.each([
    ['', 'empty body'],
    ['{"apiVersion":', 'body is not valid JSON'],
    ['[1,2]', 'body must be a JSON object'],
    [
      '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}',
      'apiVersion must be admission.k8s.io/v1, got "admission.k8s.io/v1beta1"',
    ],
    ['{"apiVersion":"admission.k8s.io/v1","kind":"Pod"}', 'kind must be AdmissionReview'],
    ['{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', 'request is missing'],
  ])('rejects %j with a 400 naming the problem', (body, message) => {
    const parsed = parseAdmissionReview(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.status).toBe(400);
      expect(parsed.message).toContain(message);
    }
  });

  it('names the bad request field', () => {
    const bad = (change: (request: Record<string, unknown>) => void) => {
      const review = podCreateReview() as unknown as { request: Record<string, unknown> };
      change(review.request);
      const parsed = parseAdmissionReview(review);
      return parsed.ok ? 'ok' : parsed.message;
    };
    expect(bad((r) => delete r['uid'])).toBe('request.uid must be a non-empty string');
    expect(bad((r) => (r['operation'] = 'PATCH'))).toBe(
      'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT, got "PATCH"',
    );
    expect(bad((r) => (r['kind'] = 'Pod'))).toBe('request.kind must be an object');
    expect(bad((r) => (r['object'] = null))).toBe('request.object is required for CREATE');
    expect(bad((r) => (r['object'] = 'x'))).toBe('request.object must be an object or null');
    expect(bad((r) => (r['dryRun'] = 'yes'))).toBe('request.dryRun must be a boolean');
    expect(bad((r) => ((r['operation'] = 'DELETE'), (r['object'] = null)))).toBe(
      'request.oldObject is required for DELETE',
    );
  });

  it('names the bad field among those read after parsing (user, request kind, options)', () => {
    const bad = (change: (request: Record<string, unknown>) => void) => {
      const review = podCreateReview() as unknown as { request: Record<string, unknown> };
      change(review.request);
      const parsed = parseAdmissionReview(review);
      return parsed.ok ? 'ok' : parsed.message;
    };
    expect(bad((r) => (r['userInfo'] = { username: 'u', groups: 'system:masters' }))).toBe(
      'request.userInfo.groups must be a list of strings',
    );
    expect(bad((r) => (r['userInfo'] = { username: 7 }))).toBe('request.userInfo.username must be a string');
    expect(bad((r) => (r['userInfo'] = { extra: { scopes: 'x' } }))).toBe(
      'request.userInfo.extra["scopes"] must be a list of strings',
    );
    expect(bad((r) => (r['requestKind'] = 'Pod'))).toBe('request.requestKind must be an object');
    expect(bad((r) => (r['requestKind'] = { group: '', version: 'v1', kind: 1 }))).toBe(
      'request.requestKind.kind must be a string',
    );
    expect(bad((r) => (r['requestSubResource'] = []))).toBe('request.requestSubResource must be a string');
    expect(bad((r) => (r['options'] = 'x'))).toBe('request.options must be an object or null');
    expect(bad((r) => (r['kind'] = { group: '', version: 'v1', kind: 'Pod '.repeat(30) }))).toMatch(
      /^request.kind.kind must be a Kubernetes kind \(letters, digits, dashes; at most 63\), got "Pod Pod/,
    );
    expect(bad((r) => (r['namespace'] = 'Team A'))).toBe(
      'request.namespace must be a namespace name (a DNS label), got "Team A"',
    );
    expect(bad((r) => (r['namespace'] = ''))).toBe('ok');
    expect(bad((r) => (r['userInfo'] = { username: 'u', groups: ['a'], extra: { s: ['x'] } }))).toBe('ok');
  });

  it('refuses a request nested deeper than the stack can walk, measured without recursion', () => {
    const nested = (depth: number) => {
      let value: unknown = 'bottom';
      for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
      return value;
    };
    const review = podCreateReview() as unknown as { request: Record<string, unknown> };
    // request is level 1, object 2, and the data value's outermost container 3.
    (review.request['object'] as Record<string, unknown>)['data'] = nested(MAX_DEPTH - 2);
    expect(parseAdmissionReview(review).ok).toBe(true);
    (review.request['object'] as Record<string, unknown>)['data'] = nested(MAX_DEPTH - 1);
    const parsed = parseAdmissionReview(review);
    expect(parsed.ok ? 'ok' : parsed.message).toBe('request is nested deeper than 1000 levels of objects and lists');
    (review.request['object'] as Record<string, unknown>)['data'] = nested(1_000_000);
    expect(parseAdmissionReview(review).ok).toBe(false);
  });
});

describe('toResourceRequest', () => {
  it('carries object, operation, user with roles, request kind, dryRun and the raw request', async () => {
    const review = podCreateReview();
    const request = await resolveResourceRequest(
      review.request,
      { rolesFor: (user) => ({ roles: [`shop:${user.username?.split(':').pop()}`], clusterRoles: ['view'] }) },
      { env: 'prod' },
    );
    expect(request.operation).toBe('CREATE');
    expect(request.resource).toBe(review.request.object);
    expect(request.oldResource).toBeUndefined();
    expect(request.user).toEqual({
      userInfo: review.request.userInfo,
      roles: ['shop:replicaset-controller'],
      clusterRoles: ['view'],
    });
    expect(request.namespaceLabels).toEqual({ env: 'prod' });
    expect(request.requestKind).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(request.dryRun).toBe(false);
    expect(request.admissionRequest).toBe(review.request);
  });

  it('uses oldObject for DELETE, the subresource, and the parent kind the app resolved', () => {
    const review = podCreateReview();
    const pod = review.request.object;
    review.request.operation = 'DELETE';
    review.request.oldObject = pod;
    review.request.object = null;
    review.request.subResource = 'exec';
    review.request.kind = { group: '', version: 'v1', kind: 'PodExecOptions' };
    review.request.requestKind = review.request.kind;
    const request = toResourceRequest(review.request, { parentKind: { group: '', version: 'v1', kind: 'Pod' } });
    expect(request.resource).toBeUndefined();
    expect(request.oldResource).toBe(pod);
    expect(request.subresource).toBe('exec');
    expect(request.requestKind).toEqual({ group: '', version: 'v1', kind: 'Pod' });
  });
});

describe('reviewResponse', () => {
  it('builds the exact AdmissionReview JSON the API server expects', () => {
    const allowed = reviewResponse('u1', {
      allowed: true,
      warnings: ['policy p.r: careful'],
      patch: [{ op: 'add', path: '/metadata/labels/a', value: 'b' }],
      auditAnnotations: { 'edict.io/mutated': 'true' },
    });
    expect(allowed).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'u1',
        allowed: true,
        patch: Buffer.from('[{"op":"add","path":"/metadata/labels/a","value":"b"}]').toString('base64'),
        patchType: 'JSONPatch',
        auditAnnotations: { 'edict.io/mutated': 'true' },
        warnings: ['policy p.r: careful'],
      },
    });
    const denied = reviewResponse('u2', {
      allowed: false,
      message: 'no',
      code: 403,
      reason: 'Forbidden',
      warnings: [],
    });
    expect(denied.response).toEqual({
      uid: 'u2',
      allowed: false,
      status: { status: 'Failure', message: 'no', reason: 'Forbidden', code: 403 },
    });
  });
});
