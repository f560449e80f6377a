// Webhook matchConditions through the HTTP server: checked on write, evaluated per request.
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InMemoryApiServerOptions } from '../api-server';
import { startServer, type Running } from '../testing/http';
import { createTestCa, startWebhookServer, type TestCa, type TestWebhookServer } from '../testing/webhook-server';

const PODS = '/api/v1/namespaces/default/pods';
const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MUTATING = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

let ca: TestCa;
let webhook: TestWebhookServer;
let running: Running | undefined;

beforeAll(async () => {
  ca = await createTestCa();
  webhook = await startWebhookServer(await ca.issue({ ips: ['127.0.0.1'] }), () => ({
    allowed: false,
    status: { message: 'called' },
  }));
  return () => webhook.close();
});

afterEach(async () => {
  await running?.server.stop();
  running = undefined;
  webhook.calls.length = 0;
});

async function apiServer(options: InMemoryApiServerOptions = {}): Promise<Running> {
  running = await startServer(options);
  return running;
}

type Condition = { name: string; expression: string };

function configuration(kind: string, conditions: Condition[], failurePolicy = 'Fail'): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: 'conditional' },
    webhooks: [
      {
        name: 'conditional.edict.test',
        clientConfig: { url: webhook.url, caBundle: ca.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy,
        matchConditions: conditions,
      },
    ],
  };
}

const validating = (conditions: Condition[], failurePolicy?: string) =>
  configuration('ValidatingWebhookConfiguration', conditions, failurePolicy);

function pod(name: string, labels: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  };
}

describe('matchConditions on write', () => {
  it('refuse expressions that do not compile, duplicate or missing names, and more than 64 conditions', async () => {
    const { request } = await apiServer();
    const bad = await request(
      'POST',
      VALIDATING,
      validating([
        { name: 'ok', expression: "object.metadata.name == 'a'" },
        { name: 'ok', expression: "'a string'" },
        { name: '', expression: 'nope(' },
      ]),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    const message = String(bad.body.message);
    expect(message).toMatch(
      /^ValidatingWebhookConfiguration\.admissionregistration\.k8s\.io "conditional" is invalid: \[/,
    );
    expect(message).toContain('webhooks[0].matchConditions[1].name: Duplicate value: "ok"');
    expect(message).toContain(
      `webhooks[0].matchConditions[1].expression: Invalid value: "'a string'": compilation failed: expression must evaluate to bool`,
    );
    expect(message).toContain('webhooks[0].matchConditions[2].name: Required value');
    expect(message).toContain(
      'webhooks[0].matchConditions[2].expression: Invalid value: "nope(": compilation failed: ',
    );

    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await request('POST', MUTATING, configuration('MutatingWebhookConfiguration', many));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toContain('webhooks[0].matchConditions: Too many: 65: must have at most 64 items');

    const good = await request('POST', VALIDATING, validating(many.slice(0, 64)));
    expect(good.status).toBe(201);
    const update = await request('PUT', `${VALIDATING}/conditional`, {
      ...good.body,
      webhooks: validating([{ name: 'x', expression: '1' }]).webhooks as JsonObject[],
    });
    expect(update.status).toBe(422);
    expect(update.body.message).toContain('must evaluate to bool');
  });
});

describe('matchConditions per request', () => {
  it('call the webhook when all hold, and skip it when one is false even if another errors', async () => {
    const { server, request } = await apiServer();
    server.create(
      validating([
        { name: 'is-web', expression: "object.metadata.labels['app'] == 'web'" },
        { name: 'create', expression: "request.operation == 'CREATE' && oldObject == null" },
      ]),
    );
    expect(await request('POST', PODS, pod('a', { app: 'web' }))).toMatchObject({
      status: 403,
      body: { message: 'admission webhook "conditional.edict.test" denied the request: called' },
    });
    expect(webhook.calls).toHaveLength(1);
    // `is-web` errors (no label), `create` holds: an error under Fail.
    expect((await request('POST', PODS, pod('b'))).status).toBe(403);
    expect((await request('POST', PODS, pod('c', { app: 'db' }))).status).toBe(201);
    expect(webhook.calls).toHaveLength(1);
  });

  it("fail the request closed with kube's Forbidden under Fail, and skip the webhook under Ignore", async () => {
    const condition = { name: 'has-team', expression: "object.metadata.labels['team'] == 'a'" };
    const { server, request } = await apiServer();
    server.create(validating([condition]));
    expect(await request('POST', PODS, pod('a'))).toMatchObject({
      status: 403,
      body: {
        reason: 'Forbidden',
        message: expect.stringMatching(
          /^pods "a" is forbidden: expression 'object\.metadata\.labels\['team'\] == 'a'' resulted in error: /,
        ),
      },
    });
    server.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'conditional');
    // A false condition skips the webhook although another one errors; a non-bool result is an error.
    server.create(
      validating([
        condition,
        { name: 'not-skip', expression: "object.metadata.name != 'skip'" },
        { name: 'dyn', expression: 'object.metadata.name' },
      ]),
    );
    expect((await request('POST', PODS, pod('skip'))).status).toBe(201);
    expect((await request('POST', PODS, pod('team', { team: 'a' }))).body.message).toBe(
      `pods "team" is forbidden: matchCondition 'dyn' must evaluate to bool`,
    );
    server.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'conditional');
    server.create(validating([condition], 'Ignore'));
    expect((await request('POST', PODS, pod('a'))).status).toBe(201);
    expect(webhook.calls).toHaveLength(0);
  });

  it('answer authorizer checks by the authorization mode', async () => {
    const conditions = [
      {
        name: 'may-create',
        expression: "authorizer.group('').resource('pods').namespace('default').check('create').allowed()",
      },
      { name: 'request-resource', expression: "authorizer.requestResource.check('create').allowed()" },
    ];
    const allowing = await apiServer();
    allowing.server.create(validating(conditions));
    expect((await allowing.request('POST', PODS, pod('a'))).status).toBe(403);
    expect(webhook.calls).toHaveLength(1);
    await allowing.server.stop();

    const denying = await apiServer({ authorization: { mode: 'AlwaysDeny' } });
    denying.server.create(validating(conditions));
    expect((await denying.request('POST', PODS, pod('a'))).status).toBe(201);
    expect(webhook.calls).toHaveLength(1);
  });

  it('skip a mutating webhook whose condition is false', async () => {
    const { server, request } = await apiServer();
    server.create(
      configuration('MutatingWebhookConfiguration', [{ name: 'never', expression: "object.kind == 'Deployment'" }]),
    );
    expect((await request('POST', PODS, pod('a'))).status).toBe(201);
    expect(webhook.calls).toHaveLength(0);
  });
});
