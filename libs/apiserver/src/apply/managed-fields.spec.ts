// Field ownership: Update operations, apply with conflicts, force and pruning, for built-ins and CRDs.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { BUILTIN_TYPES } from '../registry/builtin-types';
import { typesFromCrd } from '../registry/crd';
import type { ResourceType } from '../registry/resource-type';
import { ApiError } from '../status';
import { applyConfiguration, decodeManagedFields, managerFromUserAgent, recordUpdate } from './managed-fields';

const NOW = new Date('2026-01-01T00:00:00Z');
const LATER = new Date('2026-01-01T00:05:00Z');
const builtin = (group: string, plural: string): ResourceType =>
  BUILTIN_TYPES.find((type) => type.group === group && type.plural === plural)!;
const configMaps = builtin('', 'configmaps');
const deployments = builtin('apps', 'deployments');

const widgets = typesFromCrd({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                  },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
})[0]!;

const cm = (data: Record<string, string>, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', ...metadata },
  data,
});

const entries = (object: JsonObject) => (object.metadata as JsonObject).managedFields as JsonObject[];
const owners = (object: JsonObject) =>
  Object.fromEntries(
    decodeManagedFields((object.metadata as JsonObject).managedFields).map((entry) => [
      `${entry.manager}/${entry.operation}`,
      entry.fields.paths().map((path) => path.join(' ')),
    ]),
  );

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('recordUpdate', () => {
  it('a create is an Update by its manager owning what it set (maps as nodes too), with time and version', () => {
    const created = recordUpdate(configMaps, undefined, cm({ a: '1' }, { labels: { app: 'x' } }), {
      manager: 'kubectl-create',
      now: NOW,
    });
    expect(entries(created)).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ]);
  });

  it('another writer takes the fields it changes, and removed fields leave every owner', () => {
    const first = recordUpdate(configMaps, undefined, cm({ a: '1', b: '2' }), { manager: 'one', now: NOW });
    const second = recordUpdate(configMaps, first, { ...first, data: { a: '9' } }, { manager: 'two', now: LATER });
    expect(owners(second)).toEqual({ 'one/Update': ['f:data'], 'two/Update': ['f:data f:a'] });
    // Nothing changed: no entry, and no time moves.
    const same = recordUpdate(configMaps, second, { ...second }, { manager: 'three', now: LATER });
    expect(entries(same)).toEqual(entries(second));
  });

  it("a body's managedFields replace the recorded ones ([{}] clears them); without any, or garbled, the live ones stay", () => {
    const first = recordUpdate(configMaps, undefined, cm({ a: '1' }), { manager: 'one', now: NOW });
    const withoutField = cm({ a: '1' });
    expect(owners(recordUpdate(configMaps, first, withoutField, { manager: 'two', now: LATER }))).toEqual(
      owners(first),
    );
    const garbled = cm({ a: '1' }, { managedFields: [{ manager: 'x', fieldsV1: { spec: {} } }] });
    expect(owners(recordUpdate(configMaps, first, garbled, { manager: 'two', now: LATER }))).toEqual(owners(first));
    const cleared = cm({ a: '1' }, { managedFields: [{}] });
    expect(
      (recordUpdate(configMaps, first, cleared, { manager: 'two', now: LATER }).metadata as JsonObject).managedFields,
    ).toBeUndefined();
  });

  it('an unnamed writer (the server itself) takes changed fields from their owners without owning them', () => {
    const first = recordUpdate(configMaps, undefined, cm({ a: '1', b: '2' }), { manager: 'one', now: NOW });
    const updated = recordUpdate(
      configMaps,
      first,
      { ...first, data: { a: '1', b: '3' } },
      { manager: undefined, now: LATER },
    );
    expect(owners(updated)).toEqual({ 'one/Update': ['f:data', 'f:data f:a'] });
  });

  it('a status write is tracked apart (subresource status); the main resource never tracks status', () => {
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { tags: ['a'] },
      status: { ready: false },
    };
    const created = recordUpdate(widgets, undefined, widget, { manager: 'me', now: NOW });
    expect(owners(created)).toEqual({ 'me/Update': ['f:spec', 'f:spec f:tags'] });
    const ready = { ...created, status: { ready: true } };
    const status = recordUpdate(widgets, created, ready, { manager: 'controller', subresource: 'status', now: LATER });
    expect(entries(status).find((entry) => entry.manager === 'controller')).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:ready': {} } },
    });
  });
});

describe('applyConfiguration', () => {
  const apply = (live: JsonObject | undefined, config: JsonObject, manager: string, force = false, type = configMaps) =>
    applyConfiguration(type, live, config, { manager, force, now: LATER });

  it('owns exactly its configuration (objects are not members), merged over the live object', () => {
    const created = apply(undefined, cm({ a: '1' }), 'me');
    expect(entries(created)).toEqual([
      {
        manager: 'me',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2026-01-01T00:05:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
    ]);
    const other = apply(created, cm({ b: '2' }), 'other');
    expect(other.data).toEqual({ a: '1', b: '2' });
    expect(owners(other)).toEqual({ 'me/Apply': ['f:data f:a'], 'other/Apply': ['f:data f:b'] });
  });

  it('409 when it changes a field another manager owns; the same value is shared; force takes the field', () => {
    const created = recordUpdate(configMaps, undefined, cm({ a: '1' }), { manager: 'kubectl-create', now: NOW });
    const error = refusal(() => apply(created, cm({ a: '2' }), 'me'));
    expect(error.code).toBe(409);
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a');
    expect(owners(apply(created, cm({ a: '1' }), 'me'))).toEqual({
      'me/Apply': ['f:data f:a'],
      'kubectl-create/Update': ['f:data', 'f:data f:a'],
    });
    const forced = apply(created, cm({ a: '2' }), 'me', true);
    expect(forced.data).toEqual({ a: '2' });
    expect(owners(forced)).toEqual({ 'me/Apply': ['f:data f:a'], 'kubectl-create/Update': ['f:data'] });
  });

  it('removes the fields it no longer applies, unless another manager owns them', () => {
    const both = apply(undefined, cm({ a: '1', b: '2' }), 'me');
    expect(apply(both, cm({ a: '1' }), 'me').data).toEqual({ a: '1' });
    const shared = apply(both, cm({ b: '2' }), 'other');
    expect(apply(shared, cm({ a: '1' }), 'me').data).toEqual({ a: '1', b: '2' });
    // The last label gone: a typed object does not keep the empty map.
    const labelled = apply(undefined, cm({ a: '1' }, { labels: { team: 'x' } }), 'me');
    expect((apply(labelled, cm({ a: '1' }), 'me').metadata as JsonObject).labels).toBeUndefined();
  });

  it('built-in lists by merge key: a container owned by its name, its fields apart', () => {
    const deployment = (image: string, replicas?: number): JsonObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        ...(replicas === undefined ? {} : { replicas }),
        selector: { matchLabels: { app: 'web' } },
        template: { spec: { containers: [{ name: 'web', image }] } },
      },
    });
    const applied = apply(undefined, deployment('nginx:1', 2), 'me', false, deployments);
    expect(entries(applied)[0]!.fieldsV1).toEqual({
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
    const error = refusal(() => apply(applied, deployment('nginx:2'), 'ci', false, deployments));
    expect(error.message).toBe(
      'Apply failed with 1 conflict: conflict with "me": .spec.template.spec.containers[name="web"].image',
    );
    expect(error.details).toEqual({
      causes: [
        {
          reason: 'FieldManagerConflict',
          message: 'conflict with "me"',
          field: '.spec.template.spec.containers[name="web"].image',
        },
      ],
    });
  });

  it('CRD lists: map lists by their keys, other lists atomic', () => {
    const widget = (spec: JsonObject): JsonObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec,
    });
    const first = apply(undefined, widget({ ports: [{ name: 'http', port: 80 }], tags: ['a'] }), 'one', false, widgets);
    const second = apply(first, widget({ ports: [{ name: 'metrics', port: 9090 }] }), 'two', false, widgets);
    expect((second.spec as JsonObject).ports).toEqual([
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ]);
    expect(owners(second)['two/Apply']).toEqual([
      'f:spec f:ports k:{"name":"metrics"}',
      'f:spec f:ports k:{"name":"metrics"} f:name',
      'f:spec f:ports k:{"name":"metrics"} f:port',
    ]);
    const error = refusal(() => apply(second, widget({ tags: ['b'] }), 'two', false, widgets));
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "one": .spec.tags');
  });

  it('kubectl takes over, without conflict, client-side-applied fields still at their applied value', () => {
    const lastApplied = JSON.stringify(cm({ a: '1', b: '2' }));
    const annotations = { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied };
    const csa = recordUpdate(configMaps, undefined, cm({ a: '1', b: '2' }, { annotations }), {
      manager: 'kubectl-client-side-apply',
      now: NOW,
    });
    const upgraded = apply(csa, cm({ a: '5', b: '2' }), 'kubectl');
    expect(upgraded.data).toEqual({ a: '5', b: '2' });
    expect(
      JSON.parse(
        String(
          ((upgraded.metadata as JsonObject).annotations as JsonObject)[
            'kubectl.kubernetes.io/last-applied-configuration'
          ],
        ),
      ),
    ).toMatchObject({ data: { a: '5', b: '2' } });
    // Another name gets the conflict; so does kubectl for a field changed since it was applied.
    expect(refusal(() => apply(csa, cm({ a: '5' }), 'ci')).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
    );
    const changed = recordUpdate(
      configMaps,
      csa,
      { ...csa, data: { a: '7', b: '2' } },
      { manager: 'kubectl-client-side-apply', now: LATER },
    );
    expect(refusal(() => apply(changed, cm({ a: '5' }), 'kubectl')).message).toContain('.data.a');
  });

  it('refuses a configuration that carries managedFields', () => {
    expect(refusal(() => apply(undefined, cm({}, { managedFields: [] }), 'me')).message).toBe(
      'metadata.managedFields must be nil',
    );
  });
});

describe('update managers', () => {
  it('keeps at most 10 Update entries: the oldest fold into ancient-changes', () => {
    let object = recordUpdate(configMaps, undefined, cm({ k0: '0' }), { manager: 'm0', now: NOW });
    for (let i = 1; i <= 11; i++) {
      const now = new Date(NOW.getTime() + i * 60_000);
      object = recordUpdate(
        configMaps,
        object,
        { ...object, data: { ...(object.data as JsonObject), [`k${i}`]: String(i) } },
        { manager: `m${i}`, now },
      );
    }
    const byManager = owners(object);
    expect(Object.keys(byManager)).toHaveLength(10);
    expect(byManager['ancient-changes/Update']).toEqual(['f:data', 'f:data f:k0', 'f:data f:k1', 'f:data f:k2']);
    expect(byManager['m11/Update']).toEqual(['f:data f:k11']);
    expect(byManager).not.toHaveProperty('m0/Update');
  });
});

describe('managerFromUserAgent', () => {
  it("is the user agent's product, as kube names writes that give no fieldManager", () => {
    expect(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerFromUserAgent('')).toBeUndefined();
    expect(managerFromUserAgent(undefined)).toBeUndefined();
  });
});
