import { describe, expect, it } from 'vitest';
import { attributesFor } from './testing/attributes';
import { celRequestOf } from './request';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a' } };

describe('celRequestOf', () => {
  it('builds the AdmissionRequest kube hands to CEL, without the objects', () => {
    const request = celRequestOf(
      attributesFor(pod, {
        userInfo: { username: 'alice', groups: ['devs'], extra: { scopes: ['a'] } },
        dryRun: true,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      }),
    );
    expect(request).toEqual({
      uid: '',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web',
      namespace: 'team-a',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['devs'], extra: { scopes: ['a'] } },
      dryRun: true,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(request).not.toHaveProperty('object');
  });

  it('omits empty fields as the JSON form does, and names subresources', () => {
    const request = celRequestOf(
      attributesFor(
        { apiVersion: 'v1', kind: 'Pod', metadata: {} },
        { subresource: 'status', operation: 'UPDATE', namespace: '' },
      ),
    );
    expect(request).not.toHaveProperty('name');
    expect(request).not.toHaveProperty('namespace');
    expect(request.userInfo).toEqual({});
    expect(request.dryRun).toBe(false);
    expect(request.options).toBeNull();
    expect(request.subResource).toBe('status');
    expect(request.requestSubResource).toBe('status');
  });

  it('reports the matched equivalent as kind/resource and the request as requestKind/requestResource', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'x' } };
    const request = celRequestOf(attributesFor(deployment), {
      resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
    });
    expect(request.kind).toEqual({ group: 'apps', version: 'v1beta1', kind: 'Deployment' });
    expect(request.requestKind).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(request.requestResource).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
  });
});
