// Deprecated custom resource versions answer every request with kube's Warning header
// (apiextensions-apiserver: the version's deprecationWarning, else the default naming a newer one).
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';
import { typesFromCrd } from './crd';

let running: Running | undefined;
afterEach(async () => {
  await running?.server.stop();
  running = undefined;
});

const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function crd(versions: JsonObject[]): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      versions: versions.map((version) => ({ served: true, storage: false, schema, ...version })),
    },
  };
}

function warningOf(types: ReturnType<typeof typesFromCrd>, version: string): string | undefined {
  return types.find((type) => type.version === version)?.deprecationWarning;
}

describe('deprecated CRD versions', () => {
  it("default to kube's warning naming the most preferred newer version that is served and not deprecated", () => {
    const types = typesFromCrd(
      crd([
        { name: 'v1alpha1', deprecated: true },
        { name: 'v1beta1', storage: true },
        { name: 'v1' },
        { name: 'v2', served: false },
      ]),
    );
    expect(warningOf(types, 'v1alpha1')).toBe('example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget');
    expect(warningOf(types, 'v1')).toBeUndefined();
    expect(warningOf(types, 'v1beta1')).toBeUndefined();
  });

  it('keep their own deprecationWarning, and name no newer version when none qualifies', () => {
    const own = typesFromCrd(crd([{ name: 'v1', storage: true, deprecated: true, deprecationWarning: 'gone soon' }]));
    expect(warningOf(own, 'v1')).toBe('gone soon');
    // kube ranks GA above beta whatever the numbers: a deprecated v2 has no preferred successor in v3beta1.
    const alone = typesFromCrd(crd([{ name: 'v2', storage: true, deprecated: true }, { name: 'v3beta1' }]));
    expect(warningOf(alone, 'v2')).toBe('example.com/v2 Widget is deprecated');
  });

  it('answer reads and writes of the deprecated version with a 299 Warning header, the others without', async () => {
    running = await startServer();
    running.server.create(
      crd([
        { name: 'v1alpha1', deprecated: true },
        { name: 'v1', storage: true },
      ]),
    );
    const call = (method: string, path: string, body?: JsonObject) =>
      fetch(`${running!.url}${path}`, {
        method,
        headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
    const created = await call('POST', '/apis/example.com/v1alpha1/widgets', {
      apiVersion: 'example.com/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w' },
    });
    expect(created.status).toBe(201);
    const warning = '299 - "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"';
    expect(created.headers.get('warning')).toBe(warning);
    expect((await call('GET', '/apis/example.com/v1alpha1/widgets/w')).headers.get('warning')).toBe(warning);
    expect((await call('GET', '/apis/example.com/v1/widgets/w')).headers.get('warning')).toBeNull();
  });
});
