import { describe, expect, it } from 'vitest';
import { pod } from './testing/fixtures';
import { buildRequest, type RequestInputs } from './request-builder';
import { EMPTY_VALUES } from './values-file';
import { ValuesLookup } from './values-lookup';
import type { KubeObject } from '@edict/foundation';

const inputs = (spec: Partial<typeof EMPTY_VALUES> = {}, extra: Partial<RequestInputs> = {}): RequestInputs => ({
  values: new ValuesLookup({ ...EMPTY_VALUES, ...spec }),
  subresources: spec.subresources ?? [],
  ...extra,
});
const resource = {
  ...pod('web', 'team'),
  metadata: { name: 'web', namespace: 'team', labels: { app: 'a' } },
} as KubeObject;

describe('buildRequest', () => {
  it('builds a CREATE with the object only by default', () => {
    const request = buildRequest('p', resource, inputs());
    expect(request.operation).toBe('CREATE');
    expect(request.resource).toBe(resource);
    expect(request.oldResource).toBeUndefined();
  });

  it('sets old and new object for UPDATE and only the old one for DELETE', () => {
    const update = buildRequest('p', resource, inputs({ globalValues: { 'request.operation': 'UPDATE' } }));
    expect(update.operation).toBe('UPDATE');
    expect(update.resource).toEqual(resource);
    expect(update.oldResource).toEqual(resource);
    const remove = buildRequest(
      'p',
      resource,
      inputs({
        policies: [{ name: 'p', rules: [], resources: [{ name: 'web', values: { 'request.operation': 'DELETE' } }] }],
      }),
    );
    expect(remove.operation).toBe('DELETE');
    expect(remove.resource).toBeUndefined();
    expect(remove.oldResource).toEqual(resource);
  });

  it('lets a results[] operation override the values', () => {
    expect(
      buildRequest('p', resource, inputs({ globalValues: { 'request.operation': 'UPDATE' } }), 'DELETE').operation,
    ).toBe('DELETE');
  });

  it('writes request.object / request.oldObject values into copies of the objects', () => {
    const request = buildRequest(
      'p',
      resource,
      inputs({
        globalValues: {
          'request.operation': 'UPDATE',
          'request.oldObject.metadata.labels.app': 'old',
          'request.object.spec.x': 1,
        },
      }),
    );
    expect(request.oldResource?.metadata.labels).toEqual({ app: 'old' });
    expect(request.resource?.metadata.labels).toEqual({ app: 'a' });
    expect(request.resource?.spec).toMatchObject({ x: 1 });
    expect(resource.metadata.labels).toEqual({ app: 'a' });
  });

  it('adds namespace labels and the user', () => {
    const user = { clusterRoles: ['admin'], userInfo: { username: 'me' } };
    const request = buildRequest('p', resource, inputs({ namespaceLabels: { team: { env: 'prod' } } }, { user }));
    expect(request.namespaceLabels).toEqual({ env: 'prod' });
    expect(request.user).toBe(user);
  });

  it('requests a subresource kind as its parent’s subresource', () => {
    const scale = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'team' },
    } as KubeObject;
    const subresources = [
      {
        parent: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'deployments' },
        subresource: { group: 'autoscaling', version: 'v1', kind: 'Scale', name: 'deployments/scale' },
      },
    ];
    const request = buildRequest('p', scale, inputs({ subresources }));
    expect(request.requestKind).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(request.subresource).toBe('scale');
  });
});
