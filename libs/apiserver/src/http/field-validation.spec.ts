// fieldValidation over HTTP: pruning and its three directives on every write, as kube-apiserver answers them.
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
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  mode: { type: 'string', enum: ['Audit', 'Enforce'], default: 'Audit' },
                  rules: {
                    type: 'array',
                    items: { type: 'object', properties: { name: { type: 'string' }, message: { type: 'string' } } },
                  },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

const PATH = '/apis/example.com/v1/namespaces/default/gadgets';
const gadget = (spec: JsonObject): JsonObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'g' },
  spec,
});

async function send(
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: JsonObject; warnings: string | null }> {
  const response = await fetch(`${running.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as JsonObject,
    warnings: response.headers.get('warning'),
  };
}

beforeEach(async () => {
  running = await startServer();
  running.server.create(CRD);
});

afterEach(async () => {
  await running.server.stop();
});

describe('fieldValidation', () => {
  it('Strict refuses a create naming every unknown field, as a BadRequest', async () => {
    const answer = await send(
      'POST',
      `${PATH}?fieldValidation=Strict`,
      gadget({ mode: 'Enforce', colour: 'red', rules: [{ name: 'r', mesage: 'typo' }] }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.colour", unknown field "spec.rules[0].mesage"',
      reason: 'BadRequest',
      code: 400,
    });
    expect(running.server.get('example.com/v1', 'Gadget', 'g', 'default')).toBeUndefined();
  });

  it('Warn (the default) stores the pruned object and names each field in a Warning header', async () => {
    const answer = await send('POST', PATH, gadget({ rules: [{ name: 'r', mesage: 'typo' }] }));
    expect(answer.status).toBe(201);
    expect(answer.warnings).toBe('299 - "unknown field \\"spec.rules[0].mesage\\""');
    // Defaults are filled in after pruning.
    expect(answer.body.spec).toEqual({ mode: 'Audit', rules: [{ name: 'r' }] });
  });

  it('Ignore prunes without a word, on update and status updates too', async () => {
    await send('POST', PATH, gadget({ mode: 'Enforce' }));
    const live = running.server.get('example.com/v1', 'Gadget', 'g', 'default')!;
    const update = await send('PUT', `${PATH}/g?fieldValidation=Ignore`, { ...live, spec: { mode: 'Audit', x: 1 } });
    expect(update.status).toBe(200);
    expect(update.warnings).toBeNull();
    expect(update.body.spec).toEqual({ mode: 'Audit' });
    const status = await send('PUT', `${PATH}/g/status?fieldValidation=Ignore`, {
      ...(update.body as JsonObject),
      status: { ready: true, extra: 'x' },
    });
    expect(status.body.status).toEqual({ ready: true });
    const strictUpdate = await send('PUT', `${PATH}/g?fieldValidation=Strict`, { ...update.body, spec: { y: 1 } });
    expect(strictUpdate.status).toBe(400);
    expect(strictUpdate.body.message).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.y"',
    );
  });

  it('Strict refuses a JSON, merge or strategic patch as an Invalid patch; Warn keeps the pruned result', async () => {
    await send('POST', PATH, gadget({ mode: 'Enforce' }));
    const merge = await send(
      'PATCH',
      `${PATH}/g?fieldValidation=Strict`,
      { spec: { colour: 'red' } },
      'application/merge-patch+json',
    );
    expect(merge.status).toBe(422);
    expect(merge.body.reason).toBe('Invalid');
    expect(merge.body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.colour"$/,
    );
    expect(merge.body.details).toMatchObject({ causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] });
    const json = await send(
      'PATCH',
      `${PATH}/g`,
      [{ op: 'add', path: '/spec/colour', value: 'red' }],
      'application/json-patch+json',
    );
    expect(json.status).toBe(200);
    expect(json.warnings).toBe('299 - "unknown field \\"spec.colour\\""');
    expect(json.body.spec).toEqual({ mode: 'Enforce' });
  });

  it('server-side apply fails on a field the schema does not declare, whatever the directive', async () => {
    const answer = await send(
      'PATCH',
      `${PATH}/g?fieldManager=me&fieldValidation=Ignore`,
      gadget({ mode: 'Enforce', rules: [{ name: 'r', mesage: 'typo' }] }),
      'application/apply-patch+yaml',
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (default/g; example.com/v1, Kind=Gadget): .spec.rules[0].mesage: field not declared in schema',
      code: 500,
    });
  });

  it('built-in kinds drop fields their type does not have (typed decoding), Strict refuses them', async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, dta: {} };
    const strict = await send('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', configMap);
    expect(strict.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dta"',
    );
    const warned = await send('POST', '/api/v1/namespaces/default/configmaps', configMap);
    expect(warned.status).toBe(201);
    expect(warned.warnings).toBe('299 - "unknown field \\"dta\\""');
    expect(running.server.get('v1', 'ConfigMap', 'c', 'default')).not.toHaveProperty('dta');
  });

  it('reports keys a JSON body repeats (the last one wins, as JSON decoding keeps it)', async () => {
    const body = `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"mode":"Audit","rules":[{"name":"a","name":"b"}],"mode":"Enforce"}}`;
    const post = (query: string): Promise<Response> =>
      fetch(`${running.url}${PATH}${query}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const strict = await post('?fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as JsonObject).message).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: duplicate field "spec.rules[0].name", duplicate field "spec.mode"',
    );
    const warned = await post('');
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe(
      '299 - "duplicate field \\"spec.rules[0].name\\"", 299 - "duplicate field \\"spec.mode\\""',
    );
    expect(((await warned.json()) as JsonObject).spec).toEqual({ mode: 'Enforce', rules: [{ name: 'b' }] });
  });

  it('refuses a directive it does not know, as kube validates the options', async () => {
    const answer = await send('POST', `${PATH}?fieldValidation=Loose`, gadget({}));
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});
