import { describe, expect, it } from 'vitest';
import { parseEvaluationInput, withDiscoveredResource } from './evaluation-input';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a' }, spec: {} };
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'team-a' } };

const messageOf = (body: unknown) => {
  const parsed = parseEvaluationInput(body);
  if (parsed.ok) throw new Error('expected a problem');
  return parsed.message;
};

describe('parseEvaluationInput', () => {
  it('takes a bare Kubernetes object as a CREATE by nobody in particular', () => {
    const parsed = parseEvaluationInput(deployment);
    expect(parsed).toMatchObject({
      ok: true,
      source: 'resource',
      request: {
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        name: 'api',
        namespace: 'team-a',
        operation: 'CREATE',
        userInfo: {},
        object: deployment,
        oldObject: null,
        dryRun: false,
      },
    });
    expect(parsed.ok && parsed.request.uid).toMatch(/^admin-evaluate-/);
  });

  it('takes the wrapper with operation, old object, user, namespace labels and subresource', () => {
    const parsed = parseEvaluationInput({
      resource: pod,
      oldResource: { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } } },
      operation: 'UPDATE',
      userInfo: { username: 'alice', groups: ['dev'] },
      namespaceLabels: { env: 'prod' },
      subResource: 'status',
      dryRun: true,
    });
    expect(parsed).toMatchObject({
      ok: true,
      namespaceLabels: { env: 'prod' },
      request: {
        kind: { group: '', version: 'v1', kind: 'Pod' },
        operation: 'UPDATE',
        userInfo: { username: 'alice', groups: ['dev'] },
        subResource: 'status',
        dryRun: true,
      },
    });
  });

  it('evaluates DELETE on the old object', () => {
    const parsed = parseEvaluationInput({ oldResource: pod });
    expect(parsed).toMatchObject({ ok: true, request: { operation: 'DELETE', object: null, oldObject: pod } });
  });

  it('gives a missing metadata an empty one', () => {
    const parsed = parseEvaluationInput({ apiVersion: 'v1', kind: 'Namespace' });
    expect(parsed.ok && parsed.request.object?.metadata).toEqual({});
  });

  it('passes an AdmissionReview through the webhook’s own parser', () => {
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        operation: 'CREATE',
        namespace: 'team-a',
        userInfo: {},
        object: pod,
      },
    };
    expect(parseEvaluationInput(review)).toMatchObject({
      ok: true,
      source: 'admission-review',
      request: review.request,
    });
    expect(messageOf({ ...review, request: { ...review.request, uid: '' } })).toBe(
      'request.uid must be a non-empty string',
    );
  });

  it('names the field that is wrong', () => {
    expect(messageOf('pod')).toBe('body: must be a JSON object');
    expect(messageOf({ hello: 'world' })).toMatch(/^body: must be an AdmissionReview/);
    expect(messageOf({ resource: pod, operation: 'PATCH' })).toBe(
      'operation: must be one of CREATE, UPDATE, DELETE, CONNECT, got "PATCH"',
    );
    expect(messageOf({ resource: { kind: 'Pod' } })).toBe('resource.apiVersion: must be a non-empty string');
    expect(messageOf({ resource: 'pod' })).toBe('resource: must be a Kubernetes object');
    expect(messageOf({ resource: { ...pod, metadata: { name: 3 } } })).toBe('resource.metadata.name: must be a string');
    expect(messageOf({ resource: { ...pod, metadata: { labels: { a: 1 } } } })).toBe(
      'resource.metadata.labels.a: must be a string',
    );
    expect(messageOf({ operation: 'CREATE', oldResource: pod })).toBe('resource: required for CREATE');
    expect(messageOf({ resource: pod, oldResource: deployment })).toBe(
      'oldResource.kind: must equal resource.kind (Pod), got Deployment',
    );
    expect(messageOf({ resource: pod, userInfo: { groups: 'dev' } })).toBe(
      'userInfo.groups: must be a list of strings',
    );
    expect(messageOf({ resource: pod, userInfo: { name: 'x' } })).toMatch(/^userInfo\.name: unknown field/);
    expect(messageOf({ resource: pod, namespaceLabels: { env: true } })).toBe('namespaceLabels.env: must be a string');
    expect(messageOf({ resource: pod, dryRun: 'yes' })).toBe('dryRun: must be a boolean');
    expect(messageOf({ resource: pod, namespacelabels: {} })).toMatch(/^namespacelabels: unknown field/);
  });
});

describe('the resource guessed from the kind (pluralOfKind)', () => {
  it('adds es to a kind ending in one s, as Kubernetes names ComponentStatus', () => {
    const status = { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0' } };
    const parsed = parseEvaluationInput(status);
    expect(parsed.ok && parsed.request.resource).toEqual({ group: '', version: 'v1', resource: 'componentstatuses' });
  });
});

describe('withDiscoveredResource', () => {
  const parsed = (object: unknown) => {
    const input = parseEvaluationInput(object);
    if (!input.ok) throw new Error(input.message);
    return input.request;
  };

  it('puts a namespaced object sent without a namespace in default, as kubectl does', () => {
    const request = withDiscoveredResource(parsed({ ...pod, metadata: { name: 'web' } }), {
      resource: 'pods',
      namespaced: true,
    });
    expect(request.namespace).toBe('default');
    expect((request.object as { metadata: { namespace: string } }).metadata.namespace).toBe('default');
    expect(request.resource).toEqual({ group: '', version: 'v1', resource: 'pods' });
  });

  it('keeps a given namespace, leaves cluster-scoped objects without one, and takes the real resource name', () => {
    expect(withDiscoveredResource(parsed(pod), { resource: 'pods', namespaced: true }).namespace).toBe('team-a');
    const widget = parsed({ apiVersion: 'example.com/v1', kind: 'Octopus', metadata: { name: 'o' } });
    const request = withDiscoveredResource(widget, { resource: 'octopodes', namespaced: false });
    expect(request.namespace).toBeUndefined();
    expect(request.requestResource).toEqual({ group: 'example.com', version: 'v1', resource: 'octopodes' });
  });
});
