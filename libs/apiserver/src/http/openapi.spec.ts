// The OpenAPI documents: schemas for built-ins and CRDs, caching, and v2 in JSON and protobuf.
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';

let running: Running;

const CRD: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { mode: { type: 'string', enum: ['A', 'B'] } } } },
          },
        },
      },
    ],
  },
};

const getJson = async (path: string): Promise<JsonObject> =>
  (await (await fetch(`${running.url}${path}`)).json()) as JsonObject;

beforeEach(async () => {
  running = await startServer();
});

afterEach(async () => {
  await running.server.stop();
});

describe('OpenAPI v3', () => {
  it('publishes built-in kinds with descriptions, group-version-kinds and merge keys', async () => {
    const schemas = ((await getJson('/openapi/v3/api/v1')).components as JsonObject).schemas as JsonObject;
    const pod = schemas['io.k8s.api.core.v1.Pod'] as JsonObject;
    expect(pod['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect((pod.properties as JsonObject).spec).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }],
      description:
        'Specification of the desired behavior of the pod. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
    });
    const podSpec = schemas['io.k8s.api.core.v1.PodSpec'] as JsonObject;
    expect(podSpec.required).toEqual(['containers']);
    expect((podSpec.properties as JsonObject).containers).toMatchObject({
      type: 'array',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    // What the kinds reference comes along.
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });

  it("publishes a CRD version's schema under its reversed group, and changes the hash when CRDs change", async () => {
    const before = (await getJson('/openapi/v3')).paths as JsonObject;
    expect(before['apis/example.com/v1']).toBeUndefined();
    running.server.create(CRD);
    const after = (await getJson('/openapi/v3')).paths as JsonObject;
    const url = (after['apis/example.com/v1'] as JsonObject).serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/example\.com\/v1\?hash=[0-9A-F]{128}$/);
    const schemas = ((await getJson(url)).components as JsonObject).schemas as JsonObject;
    expect(schemas['com.example.v1.Gadget']).toMatchObject({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Gadget', version: 'v1' }],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
        spec: { properties: { mode: { type: 'string', enum: ['A', 'B'] } } },
      },
    });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    running.server.delete('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gadgets.example.com');
    expect(((await getJson('/openapi/v3')).paths as JsonObject)['apis/example.com/v1']).toBeUndefined();
  });

  it('answers a group version with an ETag, and 304 when the client has it', async () => {
    const first = await fetch(`${running.url}/openapi/v3/apis/apps/v1`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const again = await fetch(`${running.url}/openapi/v3/apis/apps/v1`, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${running.url}/openapi/v3/apis/nope.example.com/v1`)).status).toBe(404);
  });
});

describe('OpenAPI v2', () => {
  it('serves JSON with #/definitions refs and operations that list fieldValidation', async () => {
    running.server.create(CRD);
    const document = await getJson('/openapi/v2');
    expect(document.swagger).toBe('2.0');
    const definitions = document.definitions as JsonObject;
    expect((definitions['io.k8s.api.apps.v1.Deployment'] as JsonObject).properties).toMatchObject({
      spec: { $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec' },
    });
    expect(definitions['com.example.v1.Gadget']).toBeDefined();
    const patch = (
      (document.paths as JsonObject)['/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}'] as JsonObject
    ).patch as JsonObject;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', kind: 'Gadget', version: 'v1' });
    expect(patch.parameters).toContainEqual({
      name: 'fieldValidation',
      in: 'query',
      type: 'string',
      uniqueItems: true,
    });
  });

  it("serves gnostic's protobuf Document when client-go asks for it", async () => {
    const response = await fetch(`${running.url}/openapi/v2`, {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(response.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const body = Buffer.from(await response.arrayBuffer());
    // Field 1 (swagger, length-delimited): "2.0"; then field 2 (info).
    expect([...body.subarray(0, 5)]).toEqual([0x0a, 3, 0x32, 0x2e, 0x30]);
    expect(body[5]).toBe(0x12);
    expect(body.includes(Buffer.from('io.k8s.api.core.v1.PodSpec'))).toBe(true);
  });
});
