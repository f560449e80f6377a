// Subresources with their own kinds, through real kubectl and HTTPS webhooks (a test CA).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '../kubeconfig';
import { startServer, type Running } from '../testing/http';
import { hasKubectl, KUBECTL, MISSING_KUBECTL, skipWithoutKubectl } from '../testing/kubectl';
import {
  createTestCa,
  jsonPatchResponse,
  startWebhookServer,
  type TestCa,
  type TestWebhookServer,
  type WebhookHandler,
} from '../testing/webhook-server';

const run = promisify(execFile);

let ca: TestCa;
let tls: { cert: string; key: string };
let running: Running;
let dir: string;
const webhooks: TestWebhookServer[] = [];

beforeAll(async () => {
  ca = await createTestCa();
  tls = await ca.issue({ ips: ['127.0.0.1'], dns: ['localhost'] });
});

afterEach(async () => {
  await running?.server.stop();
  await Promise.all(webhooks.splice(0).map((w) => w.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setup(): Promise<void> {
  running = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'edict-subresources-'));
  writeFileSync(join(dir, 'kubeconfig'), kubeconfigFor({ server: running.url }));
}

async function kubectl(...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run(KUBECTL, [`--cache-dir=${join(dir, 'cache')}`, ...args], {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir },
      timeout: 15_000,
    });
    return { ok: true, out: stdout };
  } catch (error) {
    return { ok: false, out: (error as { stderr?: string }).stderr ?? String(error) };
  }
}

async function webhook(resources: string[], operations: string[], handler: WebhookHandler, mutating = false) {
  const server = await startWebhookServer(tls, handler);
  webhooks.push(server);
  running.server.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name: `hook-${webhooks.length}` },
    webhooks: [
      {
        name: 'sub.edict.test',
        clientConfig: { url: server.url, caBundle: ca.caBundle },
        rules: [{ operations, apiGroups: ['*'], apiVersions: ['*'], resources }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });
  return server;
}

const pod = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

if (!hasKubectl) {
  it.skipIf(skipWithoutKubectl)('needs kubectl', () => {
    throw new Error(MISSING_KUBECTL);
  });
}

describe.skipIf(!hasKubectl)('subresources', () => {
  it('kubectl scale goes through deployments/scale: webhooks see an autoscaling/v1 Scale, the Deployment follows', async () => {
    await setup();
    expect((await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=2')).ok).toBe(true);
    const hook = await webhook(['deployments/scale'], ['UPDATE'], (request): JsonObject => {
      const replicas = ((request.object as JsonObject).spec as JsonObject).replicas as number;
      return replicas > 5 ? { allowed: false, status: { message: 'at most 5 replicas' } } : { allowed: true };
    });

    expect(await kubectl('scale', 'deployment', 'web', '--replicas=3')).toEqual({
      ok: true,
      out: 'deployment.apps/web scaled\n',
    });
    expect(hook.calls[0]!.request).toMatchObject({
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      operation: 'UPDATE',
      name: 'web',
      object: { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { selector: 'app=web' } },
      oldObject: { kind: 'Scale', spec: { replicas: 2 } },
    });
    const deployment = running.server.get('apps/v1', 'Deployment', 'web', 'default')!;
    expect((deployment.spec as JsonObject).replicas).toBe(3);

    const denied = await kubectl('scale', 'deployment', 'web', '--replicas=9');
    expect(denied.ok).toBe(false);
    expect(denied.out).toContain('admission webhook "sub.edict.test" denied the request: at most 5 replicas');
    expect((running.server.get('apps/v1', 'Deployment', 'web', 'default')!.spec as JsonObject).replicas).toBe(3);
  });

  it('pods/exec is admitted as a CONNECT of PodExecOptions (mutable), then refused: the Pod has no node', async () => {
    await setup();
    running.server.create(pod('web'));
    const hook = await webhook(
      ['pods/exec'],
      ['CONNECT'],
      () => jsonPatchResponse([{ op: 'replace', path: '/command/0', value: 'bash' }]),
      true,
    );
    const result = await kubectl('exec', 'web', '--', 'sh', '-c', 'true');
    expect(result.ok).toBe(false);
    expect(result.out).toContain('pod web does not have a host assigned');
    expect(hook.calls[0]!.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'exec',
      operation: 'CONNECT',
      name: 'web',
      namespace: 'default',
      object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh', '-c', 'true'], stdout: true },
    });
  });

  it('pods/eviction: a denial keeps the Pod; otherwise the Pod goes, unless a disruption budget selects it', async () => {
    await setup();
    running.server.create(pod('kept', { evict: 'false' }));
    running.server.create(pod('gone'));
    running.server.create(pod('budgeted', { app: 'db' }));
    running.server.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'db', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    await webhook(['pods/eviction'], ['CREATE'], (request): JsonObject =>
      request.name === 'kept'
        ? { allowed: false, status: { message: 'Evicting Pods protected with the label evict=false is forbidden' } }
        : { allowed: true },
    );
    const evict = (name: string) =>
      running.request('POST', `/api/v1/namespaces/default/pods/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name },
      });

    const denied = await evict('kept');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('Evicting Pods protected with the label evict=false is forbidden');
    expect(running.server.get('v1', 'Pod', 'kept', 'default')).toBeDefined();

    expect(await evict('gone')).toEqual({
      status: 201,
      body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
    });
    expect(running.server.get('v1', 'Pod', 'gone', 'default')).toBeUndefined();

    const budgeted = await evict('budgeted');
    expect(budgeted.status).toBe(429);
    expect(running.server.get('v1', 'Pod', 'budgeted', 'default')).toBeDefined();
  });

  it('pods/ephemeralcontainers changes only the ephemeral containers (kubectl debug)', async () => {
    await setup();
    running.server.create(pod('web'));
    const hook = await webhook(['pods/ephemeralcontainers'], ['UPDATE'], () => ({ allowed: true }));
    // kubectl debug then waits for the container to start, which never happens here.
    await kubectl('debug', 'web', '--image=busybox', '--profile=general', '--attach=false');
    const live = running.server.get('v1', 'Pod', 'web', 'default')!;
    const spec = live.spec as JsonObject;
    expect(spec.containers).toEqual([{ name: 'c', image: 'nginx' }]);
    expect((spec.ephemeralContainers as JsonObject[])[0]).toMatchObject({ image: 'busybox' });
    expect(hook.calls[0]!.request).toMatchObject({ kind: { kind: 'Pod' }, subResource: 'ephemeralcontainers' });
  });

  it('discovery names each subresource kind (the scale client resolves Scale from it)', async () => {
    await setup();
    const apps = await running.request('GET', '/apis/apps/v1');
    const resources = apps.body.resources as JsonObject[];
    expect(resources.find((r) => r.name === 'deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    const core = (await running.request('GET', '/api/v1')).body.resources as JsonObject[];
    expect(core.find((r) => r.name === 'pods/eviction')).toMatchObject({ group: 'policy', kind: 'Eviction' });
    expect(core.find((r) => r.name === 'pods/exec')).toMatchObject({ kind: 'PodExecOptions' });
    // Every Pod subresource kube-apiserver serves, as discovery lists them.
    expect(core.filter((r) => String(r.name).startsWith('pods/')).map((r) => r.name)).toEqual([
      'pods/status',
      'pods/attach',
      'pods/binding',
      'pods/ephemeralcontainers',
      'pods/eviction',
      'pods/exec',
      'pods/log',
      'pods/portforward',
      'pods/proxy',
      'pods/resize',
    ]);
    expect(core.find((r) => r.name === 'pods/resize')).toMatchObject({
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
    expect(core.find((r) => r.name === 'pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(core.find((r) => r.name === 'pods/proxy')).toMatchObject({ kind: 'PodProxyOptions' });
  });

  it('pods/binding is admitted as a CREATE of a v1 Binding, then assigns the Pod to the node once', async () => {
    await setup();
    running.server.create(pod('web'));
    running.server.create(pod('kept', { bind: 'false' }));
    const hook = await webhook(['pods/binding'], ['CREATE'], (request): JsonObject =>
      request.name === 'kept' ? { allowed: false, status: { message: 'not this one' } } : { allowed: true },
    );
    const bind = (name: string, node: string, kind = 'Node') =>
      running.request('POST', `/api/v1/namespaces/default/pods/${name}/binding`, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, annotations: { scheduled: 'yes' } },
        target: { apiVersion: 'v1', kind, name: node },
      });

    expect((await bind('web', 'node-1')).status).toBe(201);
    expect(hook.calls[0]!.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Binding' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'binding',
      operation: 'CREATE',
      object: { kind: 'Binding', target: { name: 'node-1' } },
    });
    const bound = running.server.get('v1', 'Pod', 'web', 'default')!;
    expect((bound.spec as JsonObject).nodeName).toBe('node-1');
    expect((bound.metadata as JsonObject).annotations).toEqual({ scheduled: 'yes' });
    expect((bound.status as JsonObject).conditions).toMatchObject([{ type: 'PodScheduled', status: 'True' }]);

    const again = await bind('web', 'node-2');
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('pod web is already assigned to node "node-1"');
    expect((await bind('kept', 'node-1')).status).toBe(403);
    expect((running.server.get('v1', 'Pod', 'kept', 'default')!.spec as JsonObject).nodeName).toBeUndefined();
  });

  it('pods/proxy is admitted as a CONNECT of PodProxyOptions with its path, then refused: the Pod has no node', async () => {
    await setup();
    running.server.create(pod('web'));
    const hook = await webhook(['pods/proxy'], ['CONNECT'], () => ({ allowed: true }));
    const answer = await running.request('GET', '/api/v1/namespaces/default/pods/web/proxy?path=/healthz');
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('pod web does not have a host assigned');
    expect(hook.calls[0]!.request).toMatchObject({
      kind: { kind: 'PodProxyOptions' },
      subResource: 'proxy',
      operation: 'CONNECT',
      object: { kind: 'PodProxyOptions', apiVersion: 'v1', path: '/healthz' },
    });
  });
});
