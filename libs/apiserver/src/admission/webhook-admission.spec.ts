// The admission chain end to end: the server calls HTTPS webhooks (a test CA) on HTTP writes.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '../kubeconfig';
import { dig, startServer, type Running } from '../testing/http';
import { hasKubectl, KUBECTL, MISSING_KUBECTL, skipWithoutKubectl } from '../testing/kubectl';
import {
  createTestCa,
  jsonPatchResponse,
  startWebhookServer,
  type TestCa,
  type TestWebhookServer,
  type WebhookHandler,
} from '../testing/webhook-server';
import type { InMemoryApiServerOptions } from '../api-server';

const PODS = '/api/v1/namespaces/default/pods';
const CMS = '/api/v1/namespaces/default/configmaps';

let ca: TestCa;
let tls: { cert: string; key: string };
let running: Running | undefined;
const webhooks: TestWebhookServer[] = [];

beforeAll(async () => {
  ca = await createTestCa();
  tls = await ca.issue({ ips: ['127.0.0.1'], dns: ['localhost'] });
});

afterEach(async () => {
  await running?.server.stop();
  running = undefined;
  await Promise.all(webhooks.splice(0).map((w) => w.close()));
});

async function webhookServer(handler: WebhookHandler, certificate = tls): Promise<TestWebhookServer> {
  const server = await startWebhookServer(certificate, handler);
  webhooks.push(server);
  return server;
}

async function apiServer(options: InMemoryApiServerOptions = {}): Promise<Running> {
  running = await startServer(options);
  return running;
}

const POD_RULE = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

function hook(name: string, url: string, extra: JsonObject = {}): JsonObject {
  return {
    name,
    clientConfig: { url, caBundle: ca.caBundle },
    rules: [POD_RULE],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function validating(name: string, ...hooks: JsonObject[]): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks,
  };
}

function mutating(name: string, ...hooks: JsonObject[]): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks,
  };
}

function pod(name: string, labels: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const DENY = { allowed: false, status: { message: 'pods are not welcome here' } };

describe('validating webhooks', () => {
  it('deny a Pod with kube-apiserver status and text, after receiving a kube-shaped AdmissionReview', async () => {
    const webhook = await webhookServer(() => ({ ...DENY, warnings: ['first "warning"', 'second'] }));
    const { server, request } = await apiServer();
    server.create(validating('deny-pods', hook('deny.edict.test', `${webhook.url}/validate`)));

    const response = await fetch(`${running!.url}${PODS}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(pod('web', { app: 'web' })),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('warning')).toBe('299 - "first \\"warning\\"", 299 - "second"');
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "deny.edict.test" denied the request: pods are not welcome here',
      code: 403,
    });
    expect(server.get('v1', 'Pod', 'web', 'default')).toBeUndefined();

    expect(webhook.calls).toHaveLength(1);
    const [{ path, request: review }] = webhook.calls as [{ path: string; request: JsonObject }];
    expect(path).toBe('/validate?timeout=10s');
    expect(review).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(review.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(dig(review, 'object.metadata.uid')).toBeDefined();
    expect(dig(review, 'object.metadata.labels')).toEqual({ app: 'web' });
    expect(review).not.toHaveProperty('subResource');

    // A webhook status code and reason are kept; no message falls back to the reason.
    const { status, body } = await request('POST', CMS, { metadata: { name: 'c' } });
    expect(status).toBe(201);
    expect(body.kind).toBe('ConfigMap');
  });

  it('report the denial through @kubernetes/client-node and kubectl', async () => {
    const webhook = await webhookServer(() => DENY);
    const { server, url } = await apiServer();
    server.create(validating('deny-pods', hook('deny.edict.test', webhook.url)));
    const config = new k8s.KubeConfig();
    config.loadFromString(kubeconfigFor({ server: url }));
    const core = config.makeApiClient(k8s.CoreV1Api);
    const error = await core.createNamespacedPod({ namespace: 'default', body: pod('web') as k8s.V1Pod }).then(
      () => undefined,
      (e: unknown) => e as k8s.ApiException<string>,
    );
    expect(error?.code).toBe(403);
    expect(JSON.parse(String(error?.body)).message).toBe(
      'admission webhook "deny.edict.test" denied the request: pods are not welcome here',
    );

    if (!hasKubectl) {
      if (skipWithoutKubectl) return;
      throw new Error(MISSING_KUBECTL);
    }
    const dir = mkdtempSync(join(tmpdir(), 'edict-admission-'));
    try {
      writeFileSync(join(dir, 'kubeconfig'), kubeconfigFor({ server: url }));
      writeFileSync(join(dir, 'pod.yaml'), JSON.stringify(pod('web')));
      const failure = await promisify(execFile)(
        KUBECTL,
        ['apply', '-f', join(dir, 'pod.yaml'), `--cache-dir=${join(dir, 'cache')}`],
        { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir }, timeout: 15_000 },
      ).then(
        () => undefined,
        (e: { stderr: string }) => e.stderr,
      );
      expect(failure).toContain('admission webhook "deny.edict.test" denied the request: pods are not welcome here');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keep a webhook status code and fall back to its reason, or to "without explanation"', async () => {
    let answer: JsonObject = { allowed: false, status: { code: 422, reason: 'Invalid' } };
    const webhook = await webhookServer(() => answer);
    const { server, request } = await apiServer();
    server.create(validating('deny', hook('deny.edict.test', webhook.url)));
    expect(await request('POST', PODS, pod('a'))).toMatchObject({
      status: 422,
      body: {
        reason: 'Invalid',
        message: 'admission webhook "deny.edict.test" denied the request: Invalid',
        code: 422,
      },
    });
    answer = { allowed: false };
    expect(await request('POST', PODS, pod('a'))).toMatchObject({
      status: 403,
      body: { message: 'admission webhook "deny.edict.test" denied the request without explanation' },
    });
  });

  it('see UPDATE with oldObject, DELETE with oldObject only, /status as a subresource, and impersonated users', async () => {
    const webhook = await webhookServer(() => ({ allowed: true }));
    const { server, request } = await apiServer();
    server.create({ ...pod('web'), metadata: { name: 'web', namespace: 'default' } });
    server.create(
      validating(
        'all',
        hook('all.edict.test', webhook.url, {
          rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'] }],
        }),
      ),
    );
    const update = await fetch(`${running!.url}${PODS}/web`, {
      method: 'PATCH',
      headers: {
        'Content-Type': 'application/merge-patch+json',
        'Impersonate-User': 'alice',
        'Impersonate-Group': 'devs',
      },
      body: JSON.stringify({ metadata: { labels: { x: 'y' } } }),
    });
    expect(update.status).toBe(200);
    expect(
      (await request('PATCH', `${PODS}/web/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json'))
        .status,
    ).toBe(200);
    expect((await request('DELETE', `${PODS}/web`)).status).toBe(200);

    const [patched, status, deleted] = webhook.calls.map((call) => call.request);
    expect(patched).toMatchObject({
      operation: 'UPDATE',
      userInfo: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      options: { kind: 'UpdateOptions' },
      object: { metadata: { labels: { x: 'y' } } },
    });
    expect(dig(patched, 'oldObject.metadata.labels')).toBeUndefined();
    expect(status).toMatchObject({ operation: 'UPDATE', subResource: 'status', requestSubResource: 'status' });
    expect(deleted).toMatchObject({ operation: 'DELETE', object: null, options: { kind: 'DeleteOptions' } });
    expect(dig(deleted, 'oldObject.metadata.name')).toBe('web');
  });
});

describe('mutating webhooks', () => {
  it('apply JSONPatch responses in configuration-name order, each seeing the previous patch, before validation', async () => {
    const first = await webhookServer(() =>
      jsonPatchResponse([{ op: 'add', path: '/metadata/labels/mutated', value: 'first' }]),
    );
    const second = await webhookServer((request) =>
      jsonPatchResponse([
        { op: 'add', path: '/metadata/labels/seen', value: String(dig(request, 'object.metadata.labels.mutated')) },
      ]),
    );
    const check = await webhookServer(() => ({ allowed: true }));
    const { server, request } = await apiServer();
    // Names sort "a-…" before "b-…" whatever the creation order.
    server.create(mutating('b-second', hook('second.edict.test', second.url)));
    server.create(mutating('a-first', hook('first.edict.test', first.url)));
    server.create(validating('check', hook('check.edict.test', check.url)));

    const created = await request('POST', PODS, pod('web', { app: 'web' }));
    expect(created.status).toBe(201);
    expect(dig(created.body, 'metadata.labels')).toEqual({ app: 'web', mutated: 'first', seen: 'first' });
    expect(dig(server.get('v1', 'Pod', 'web', 'default'), 'metadata.labels')).toEqual({
      app: 'web',
      mutated: 'first',
      seen: 'first',
    });
    // Mutating webhooks see the object before system metadata; validating ones see it after.
    expect(dig(first.calls[0]!.request, 'object.metadata.uid')).toBeUndefined();
    expect(dig(check.calls[0]!.request, 'object.metadata.labels.seen')).toBe('first');
    expect(dig(check.calls[0]!.request, 'object.metadata.uid')).toBeDefined();
  });

  it('fail the request on a patch that does not apply or has no patchType', async () => {
    let answer: JsonObject = jsonPatchResponse([{ op: 'replace', path: '/spec/nothing/here', value: 1 }]);
    const webhook = await webhookServer(() => answer);
    const { server, request } = await apiServer();
    server.create(mutating('m', hook('m.edict.test', webhook.url)));
    const broken = await request('POST', PODS, pod('web'));
    expect(broken.status).toBe(500);
    answer = { allowed: true, patch: Buffer.from('[]').toString('base64') + 'W10=' };
    const noType = await request('POST', PODS, pod('web'));
    expect(noType).toMatchObject({
      status: 500,
      body: {
        message:
          'Internal error occurred: failed calling webhook "m.edict.test": received invalid webhook response: webhook returned response.patch but not response.patchType',
      },
    });
  });
});

describe('matching', () => {
  it('skips webhooks whose rules, namespaceSelector or objectSelector do not match', async () => {
    const webhook = await webhookServer(() => DENY);
    const { server, request } = await apiServer();
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } });
    server.create(
      validating(
        'picky',
        hook('rules.edict.test', webhook.url, {
          rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        }),
        hook('resource.edict.test', webhook.url, {
          rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['*'] }],
        }),
        hook('ns.edict.test', webhook.url, { namespaceSelector: { matchLabels: { env: 'prod' } } }),
        hook('object.edict.test', webhook.url, {
          objectSelector: { matchExpressions: [{ key: 'policy', operator: 'In', values: ['strict'] }] },
        }),
        hook('cluster.edict.test', webhook.url, {
          rules: [{ ...POD_RULE, scope: 'Cluster' }],
        }),
        hook('subresource.edict.test', webhook.url, {
          rules: [{ ...POD_RULE, resources: ['pods/status'] }],
        }),
      ),
    );
    expect((await request('POST', PODS, pod('free'))).status).toBe(201);
    expect(webhook.calls).toHaveLength(0);

    // Each selector, once satisfied, brings its webhook in.
    expect((await request('POST', '/api/v1/namespaces/prod/pods', pod('p'))).body.message).toBe(
      'admission webhook "ns.edict.test" denied the request: pods are not welcome here',
    );
    expect((await request('POST', PODS, pod('strict', { policy: 'strict' }))).body.message).toBe(
      'admission webhook "object.edict.test" denied the request: pods are not welcome here',
    );
  });

  it('matches a Namespace by its own labels, cluster scope, wildcards and subresources', async () => {
    const webhook = await webhookServer(() => DENY);
    const { server, request } = await apiServer();
    server.create(
      validating(
        'namespaces',
        hook('ns.edict.test', webhook.url, {
          rules: [
            { operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: 'Cluster' },
          ],
          namespaceSelector: { matchLabels: { locked: 'true' } },
        }),
      ),
    );
    expect((await request('POST', '/api/v1/namespaces', { metadata: { name: 'open' } })).status).toBe(201);
    const locked = await request('POST', '/api/v1/namespaces', {
      metadata: { name: 'shut', labels: { locked: 'true' } },
    });
    expect(locked.status).toBe(403);
    expect(webhook.calls[0]!.request).toMatchObject({
      namespace: 'shut',
      name: 'shut',
      resource: { resource: 'namespaces' },
    });
    // Namespaced objects never match a Cluster-scoped rule.
    expect((await request('POST', CMS, { metadata: { name: 'c' } })).status).toBe(201);
  });

  it('never calls webhooks for webhook configurations themselves', async () => {
    const port = await closedPort();
    const { request } = await apiServer();
    const everything = hook('all.edict.test', `https://127.0.0.1:${port}/`, {
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
    });
    const path = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    expect((await request('POST', path, validating('lock', everything))).status).toBe(201);
    expect((await request('POST', CMS, { metadata: { name: 'c' } })).status).toBe(500);
    expect((await request('DELETE', `${path}/lock`)).status).toBe(200);
    expect((await request('POST', CMS, { metadata: { name: 'c' } })).status).toBe(201);
  });
});

describe('call failures', () => {
  it('fail closed under failurePolicy Fail and open under Ignore for an unreachable webhook', async () => {
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}/validate`;
    const { server, request } = await apiServer();
    server.create(validating('ignore', hook('ignore.edict.test', url, { failurePolicy: 'Ignore' })));
    expect((await request('POST', PODS, pod('a'))).status).toBe(201);
    server.create(validating('fail', hook('fail.edict.test', url)));
    expect(await request('POST', PODS, pod('b'))).toMatchObject({
      status: 500,
      body: {
        reason: 'InternalError',
        message: `Internal error occurred: failed calling webhook "fail.edict.test": failed to call webhook: Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
        details: { causes: [{ message: expect.stringContaining('failed calling webhook "fail.edict.test"') }] },
      },
    });
  });

  it('give up at timeoutSeconds and treat it as a call failure', async () => {
    const webhook = await webhookServer(
      () => new Promise((resolve) => setTimeout(() => resolve({ allowed: true }), 1500)),
    );
    const { server, request } = await apiServer();
    server.create(mutating('slow', hook('slow.edict.test', `${webhook.url}/m`, { timeoutSeconds: 1 })));
    const result = await request('POST', PODS, pod('a'));
    // A 500 naming the deadline: the call was abandoned at 1 s, not answered at 1.5 s (that would admit).
    expect(result.status).toBe(500);
    expect(result.body.message).toBe(
      `Internal error occurred: failed calling webhook "slow.edict.test": failed to call webhook: Post "${webhook.url}/m?timeout=1s": context deadline exceeded`,
    );
    expect(webhook.calls[0]!.path).toBe('/m?timeout=1s');
  });

  it('trust only the caBundle: a certificate from another CA is a call failure', async () => {
    const other = await createTestCa('other-ca');
    const webhook = await webhookServer(() => ({ allowed: true }), await other.issue({ ips: ['127.0.0.1'] }));
    const { server, request } = await apiServer();
    server.create(validating('v', hook('v.edict.test', webhook.url)));
    const result = await request('POST', PODS, pod('a'));
    expect(result.status).toBe(500);
    expect(result.body.message).toContain('x509: certificate signed by unknown authority');
    expect(webhook.calls).toHaveLength(0);
  });

  it('reject a response with the wrong uid', async () => {
    const webhook = await webhookServer(() => ({ uid: 'not-it', allowed: true }));
    const { server, request } = await apiServer();
    server.create(validating('v', hook('v.edict.test', webhook.url)));
    const result = await request('POST', PODS, pod('a'));
    expect(result.body.message).toContain('received invalid webhook response: expected response.uid=');
  });
});

describe('dry run', () => {
  it("calls webhooks with sideEffects None or NoneOnDryRun, refuses the others with kube's message", async () => {
    const webhook = await webhookServer(() => ({ allowed: true }));
    const { server, request } = await apiServer();
    server.create(validating('none', hook('none.edict.test', webhook.url, { sideEffects: 'NoneOnDryRun' })));
    expect((await request('POST', `${PODS}?dryRun=All`, pod('a'))).status).toBe(201);
    expect(webhook.calls[0]!.request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    expect(server.get('v1', 'Pod', 'a', 'default')).toBeUndefined();

    server.create(validating('some', hook('some.edict.test', webhook.url, { sideEffects: 'Some' })));
    expect(await request('POST', `${PODS}?dryRun=All`, pod('a'))).toMatchObject({
      status: 400,
      body: { reason: 'BadRequest', message: 'admission webhook "some.edict.test" does not support dry run' },
    });
    // Without dry run the same webhook is simply called.
    expect((await request('POST', PODS, pod('a'))).status).toBe(201);
  });
});

describe('service references', () => {
  it('reach a service through serviceEndpoints, keeping its path and checking <svc>.<ns>.svc', async () => {
    const serving = await ca.issue({ dns: ['edict-svc.edict.svc'] });
    const webhook = await webhookServer(() => DENY, serving);
    const { server, request } = await apiServer({ serviceEndpoints: { 'edict/edict-svc': webhook.url } });
    server.create(
      validating(
        'svc',
        hook('svc.edict.test', '', {
          clientConfig: {
            service: { namespace: 'edict', name: 'edict-svc', path: '/validate/fail', port: 443 },
            caBundle: ca.caBundle,
          },
          timeoutSeconds: 5,
        }),
      ),
    );
    expect((await request('POST', PODS, pod('a'))).body.message).toBe(
      'admission webhook "svc.edict.test" denied the request: pods are not welcome here',
    );
    expect(webhook.calls[0]!.path).toBe('/validate/fail?timeout=5s');
  });

  it('fail the call when the certificate does not name the service, or the service has no endpoint', async () => {
    const webhook = await webhookServer(() => ({ allowed: true }));
    const { server, request } = await apiServer({ serviceEndpoints: { 'edict/edict-svc:8443': webhook.url } });
    const service = (name: string, port: number): JsonObject => ({
      clientConfig: { service: { namespace: 'edict', name, port }, caBundle: ca.caBundle },
    });
    server.create(validating('svc', hook('svc.edict.test', '', service('edict-svc', 8443))));
    const wrongName = await request('POST', PODS, pod('a'));
    expect(wrongName.status).toBe(500);
    expect(wrongName.body.message).toContain(
      'tls: failed to verify certificate: x509: certificate is not valid for edict-svc.edict.svc',
    );
    server.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'svc');
    server.create(validating('svc', hook('svc.edict.test', '', service('missing', 443))));
    expect((await request('POST', PODS, pod('a'))).body.message).toContain(
      'failed to call webhook: Post "https://missing.edict.svc:443?timeout=10s": dial tcp: lookup missing.edict.svc',
    );
  });
});

describe('kept-alive webhook connections', () => {
  it('reuse one TLS connection across calls, and dial again once the webhook closed it', async () => {
    const webhook = await webhookServer(() => ({ allowed: true }));
    const { server, request } = await apiServer();
    server.create(validating('keep', hook('keep.edict.test', `${webhook.url}/validate`)));
    for (const name of ['a', 'b', 'c']) expect((await request('POST', PODS, pod(name))).status).toBe(201);
    expect(webhook.calls).toHaveLength(3);
    expect(webhook.connections()).toBe(1);
    webhook.dropConnections();
    // The closed connection leaves the pool when its end arrives; the next call dials again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await request('POST', PODS, pod('d'))).status).toBe(201);
    expect(webhook.connections()).toBe(2);
  });

  it('close a connection idle past the idle timeout themselves, and never cut a slow answer', async () => {
    const webhook = await webhookServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      return { allowed: true };
    });
    const { server, request } = await apiServer({ webhookIdleTimeoutMs: 200 });
    server.create(validating('idle', hook('idle.edict.test', `${webhook.url}/validate`)));
    // The answer takes three idle timeouts: a call in progress is not idle.
    expect((await request('POST', PODS, pod('a'))).status).toBe(201);
    expect((await request('POST', PODS, pod('b'))).status).toBe(201);
    expect(webhook.connections()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await request('POST', PODS, pod('c'))).status).toBe(201);
    expect(webhook.connections()).toBe(2);
  });
});
