/**
 * End to end through the in-memory API server's admission chain: the controller publishes its own
 * webhook configurations (its Service reached via serviceEndpoints, trusting its own CA), and a
 * client-node user creates policies and Pods.
 */
import { request as httpsRequest, type Server as HttpsServer } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '@edict/kube/testing';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import { CustomResourceDefinitions } from '@edict/kube';
import { LifecycleState } from './lifecycle/lifecycle-state';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  apiErrorMessage as messageOf,
  clusterPolicy,
  E2E_NAMESPACE as NAMESPACE,
  E2E_SERVER_NAME,
  httpsCall,
  postJson,
  requireLabelPolicy as requireTeam,
  testPod as pod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

function post(port: number, path: string, ca: string, payload: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca,
        servername: E2E_SERVER_NAME,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', (error) =>
      String(error).includes('EPIPE') || String(error).includes('ECONNRESET') ? resolve(413) : reject(error),
    );
    request.end(payload);
  });
}

/** A bare TLS handshake with the controller: the negotiated protocol and cipher, or why it failed. */
function handshake(port: number, ca: string, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: E2E_SERVER_NAME, ...options }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
      socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code ?? error.message}`));
  });
}

const review = (object: unknown, namespace?: string) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: 'kyverno.io', version: 'v2', kind: 'PolicyException' },
    resource: { group: 'kyverno.io', version: 'v2', resource: 'policyexceptions' },
    operation: 'CREATE',
    namespace,
    userInfo: { username: 'tester' },
    object,
  },
});

describe('admission controller end to end', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  let core: CoreV1Api;
  let ca: string;
  const get = (port: number, path: string, trusted: string) => httpsCall(port, trusted, path);
  /** Creates the policy and waits until the published webhook routes Pods to the controller. */
  const createPolicy = async (
    policy: ReturnType<typeof clusterPolicy>,
    webhook: ['ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', string] = [
      'ValidatingWebhookConfiguration',
      'validate.edict.svc-fail',
    ],
  ) => {
    await cluster.createClusterPolicy(policy);
    await waitForWebhook(cluster.apiServer, webhook[0], webhook[1], 'pods');
  };
  const deletePolicy = (name: string) => cluster.deleteClusterPolicy(name);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica({ maxBodyBytes: 64 * 1024 });
    core = cluster.core;
    ca = controller.caBundlePem();
    // The policy validation webhook is published at once, before any policy exists.
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('is ready once the certificate, the cache and its own TLS port are good', async () => {
    const ready = await get(controller.port, '/readyz', ca);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body).info).toMatchObject({
      certificate: { status: 'up' },
      policies: { status: 'up' },
      webhook: { status: 'up' },
    });
    expect((await get(controller.port, '/health/liveness', ca)).status).toBe(200);
  });

  it('an Enforce policy blocks a Pod with the policy message', async () => {
    await createPolicy(requireTeam('Enforce', 'require-team', 'team'));
    const error = await core
      .createNamespacedPod({ namespace: 'default', body: pod('blocked') })
      .catch((e: unknown) => e);
    const message = messageOf(error);
    expect(message).toContain('admission webhook "validate.edict.svc-fail" denied the request: ');
    expect(message).toContain('resource Pod/default/blocked was blocked due to the following policies');
    expect(message).toContain('require-team:');
    // Kyverno's message quotes the rule text as YAML (single quotes doubled).
    expect(message).toContain("check-team: 'validation error: label ''team'' is required. rule check-team failed");
    await expect(
      core.createNamespacedPod({ namespace: 'default', body: pod('allowed', { team: 'a' }) }),
    ).resolves.toBeTruthy();
    await deletePolicy('require-team');
  });

  it('an Audit policy admits the Pod', async () => {
    await createPolicy(requireTeam('Audit', 'audit-owner', 'owner'));
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('audited') });
    expect(created.metadata?.name).toBe('audited');
  });

  it("a mutate policy's change is on the stored Pod", async () => {
    await createPolicy(
      clusterPolicy('add-env-label', {
        rules: [
          {
            name: 'add-env',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: { patchStrategicMerge: { metadata: { labels: { env: 'test' } } } },
          },
        ],
      }),
      ['MutatingWebhookConfiguration', 'mutate.edict.svc-fail'],
    );
    await core.createNamespacedPod({ namespace: 'default', body: pod('mutated') });
    const stored = await core.readNamespacedPod({ namespace: 'default', name: 'mutated' });
    expect(stored.metadata?.labels).toMatchObject({ env: 'test' });
  });

  it('an invalid policy is rejected by the policy validation webhook', async () => {
    const invalid = clusterPolicy('any-and-all', {
      rules: [
        {
          name: 'both',
          match: { any: [{ resources: { kinds: ['Pod'] } }], all: [{ resources: { kinds: ['Pod'] } }] },
          validate: { message: 'x', pattern: { metadata: { name: '?*' } } },
        },
      ],
    });
    const error = await cluster.custom
      .createClusterCustomObject({ group: 'kyverno.io', version: 'v1', plural: 'clusterpolicies', body: invalid })
      .catch((e: unknown) => e);
    const message = messageOf(error);
    expect(message).toContain('admission webhook "validate-policy.edict.svc" denied the request: ');
    expect(message).toContain("Can't specify any and all together");
  });

  it('refuses a policy with a verifyImages option Edict does not run (KMS keys), naming the rule and field', async () => {
    const unsigned = clusterPolicy('signed-images', {
      validationFailureAction: 'Enforce',
      rules: [
        {
          name: 'check-signature',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          verifyImages: [
            { imageReferences: ['*'], attestors: [{ entries: [{ keys: { kms: 'awskms:///alias/k' } }] }] },
          ],
        },
      ],
    });
    const error = await cluster.custom
      .createClusterCustomObject({ group: 'kyverno.io', version: 'v1', plural: 'clusterpolicies', body: unsigned })
      .catch((e: unknown) => e);
    expect(messageOf(error)).toContain(
      'spec.rules[0].verifyImages[0].attestors[0].entries[0].keys.kms: rule check-signature: KMS keys are not supported by Edict',
    );
  });

  it('refuses a namespaced Policy matching a cluster-scoped custom resource kind', async () => {
    cluster.apiServer.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const crds = controller.app.get(CustomResourceDefinitions);
    await eventually(() => crds.clusterScopedKinds().includes('Widget'), 'the CRD seen');
    const policy = {
      apiVersion: 'kyverno.io/v1',
      kind: 'Policy',
      metadata: { name: 'widgets', namespace: 'default' },
      spec: {
        rules: [
          {
            name: 'label-widgets',
            match: { any: [{ resources: { kinds: ['Widget'] } }] },
            validate: { message: 'x', pattern: { metadata: { labels: { team: '?*' } } } },
          },
        ],
      },
    };
    const error = await cluster.custom
      .createNamespacedCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        namespace: 'default',
        plural: 'policies',
        body: policy,
      })
      .catch((e: unknown) => e);
    expect(messageOf(error)).toContain("Cluster wide resource 'Widget' not allowed in namespaced policy");
  });

  it('counts reviews and rule results under Kyverno metric names', async () => {
    const metrics = await get(controller.port, '/metrics', ca);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(
      /kyverno_admission_requests_total\{resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="false"\} \d+/,
    );
    expect(metrics.body).toContain('kyverno_admission_review_duration_seconds_bucket');
    expect(metrics.body).toMatch(
      /kyverno_policy_results_total\{[^}]*policy_name="require-team"[^}]*rule_result="fail"/,
    );
    expect(metrics.body).toContain('kyverno_policy_execution_duration_seconds_bucket');
  });

  it('refuses bodies over the size limit with 413 and malformed reviews with 400', async () => {
    expect(await post(controller.port, '/validate/fail', ca, Buffer.alloc(128 * 1024, 'a'))).toBe(413);
    expect(await post(controller.port, '/validate/fail', ca, Buffer.from('{"kind":"AdmissionReview"}'))).toBe(400);
  });
  it('speaks TLS 1.2+ with ECDHE AEAD suites only, and bounds slow requests and idle connections', async () => {
    const port = controller.port;
    // Clients offering only what the controller refuses (the client's own floor lowered so it can offer them).
    const legacy = { ciphers: 'DEFAULT@SECLEVEL=0' };
    expect(await handshake(port, ca, { ...legacy, minVersion: 'TLSv1', maxVersion: 'TLSv1.1' })).toMatch(/^refused/);
    const cbc = 'ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA';
    expect(await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: `${cbc}@SECLEVEL=0` })).toMatch(/^refused/);
    expect(
      await handshake(port, ca, { maxVersion: 'TLSv1.2', ciphers: 'AES128-GCM-SHA256:AES256-GCM-SHA384' }),
    ).toMatch(/^refused/);
    // What the API server offers.
    expect(
      await handshake(port, ca, {
        maxVersion: 'TLSv1.2',
        ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256',
      }),
    ).toMatch(/^TLSv1\.2 ECDHE-(ECDSA|RSA)-AES128-GCM-SHA256$/);
    expect(await handshake(port, ca, { minVersion: 'TLSv1.3' })).toMatch(/^TLSv1\.3 TLS_/);

    const server = controller.app.getHttpServer() as HttpsServer;
    expect([server.requestTimeout, server.headersTimeout, server.keepAliveTimeout]).toEqual([30_000, 10_000, 90_000]);
  });

  it("admits Pods in the controller's own namespace whatever the policies say", async () => {
    await createPolicy(requireTeam('Enforce', 'require-team-2', 'team'));
    const created = await core.createNamespacedPod({ namespace: NAMESPACE, body: pod('own', {}, NAMESPACE) });
    expect(created.metadata?.name).toBe('own');
    await deletePolicy('require-team-2');
  });

  it('honours PolicyExceptions only from the exception namespaces, none until the ConfigMap names some', async () => {
    await createPolicy(requireTeam('Enforce', 'require-team-x', 'team'));
    const exceptionIn = (namespace: string) => ({
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'skip', namespace },
      spec: {
        match: { any: [{ resources: { kinds: ['Pod'], names: ['excepted-*'] } }] },
        exceptions: [{ policyName: 'require-team-x', ruleNames: ['check-team'] }],
      },
    });
    const createException = (namespace: string) =>
      cluster.custom.createNamespacedCustomObject({
        group: 'kyverno.io',
        version: 'v2',
        namespace,
        plural: 'policyexceptions',
        body: exceptionIn(namespace),
      });
    const validateException = (namespace: string) =>
      postJson<{ response: { allowed: boolean; warnings?: string[] } }>(
        controller.port,
        ca,
        '/exceptionvalidate',
        review(exceptionIn(namespace), namespace),
      );
    const cache = controller.app.get(PolicyCache);
    const createPod = (name: string) =>
      core.createNamespacedPod({ namespace: 'default', body: pod(name) }).then(
        () => 'created',
        (error: unknown) => messageOf(error),
      );

    // No exception namespaces anywhere: exceptions are off, and say so when created.
    expect((await validateException('default')).body.response.warnings).toEqual([
      'PolicyException resources would not be processed until it is enabled.',
    ]);
    await createException('default');
    await eventually(() => cache.exceptionEntries().length === 1, 'the exception in the cache');
    expect(await createPod('excepted-1')).toContain('was blocked due to the following policies');

    // The ConfigMap names `policies`: an exception in `default` still exempts nothing.
    await core.createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: { metadata: { name: 'edict', namespace: NAMESPACE }, data: { exceptionNamespaces: 'policies' } },
    });
    const config = controller.app.get(AdmissionConfigService);
    await eventually(() => config.current().exceptionNamespaces.includes('policies'), 'the ConfigMap applied');
    expect((await validateException('default')).body.response.warnings).toEqual([
      'PolicyException resource namespace must match the defined namespace.',
    ]);
    expect(cache.exceptions()).toEqual([]);
    expect(await createPod('excepted-2')).toContain('was blocked due to the following policies');

    // The same exception from `policies` is honoured.
    await core.createNamespace({ body: { metadata: { name: 'policies' } } });
    expect((await validateException('policies')).body.response).toEqual({ uid: 'u-1', allowed: true });
    await createException('policies');
    await eventually(() => cache.exceptions().length === 1, 'the exception in force');
    expect(await createPod('excepted-3')).toBe('created');
    expect(await createPod('not-excepted')).toContain('was blocked due to the following policies');
    await deletePolicy('require-team-x');
  });

  it('matches a subresource request on the kind it is about (Pod/exec for PodExecOptions)', async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('no-exec', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [
          {
            name: 'deny-exec',
            match: { any: [{ resources: { kinds: ['Pod/exec'] } }] },
            validate: { message: 'exec is not allowed', deny: {} },
          },
        ],
      }),
    );
    const exec = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'exec-1',
        kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        subResource: 'exec',
        name: 'web',
        namespace: 'default',
        operation: 'CONNECT',
        userInfo: { username: 'tester' },
        object: { apiVersion: 'v1', kind: 'PodExecOptions', command: ['sh'], container: 'app' },
      },
    };
    const answer = await postJson<{ response: { allowed: boolean; status?: { message: string } } }>(
      controller.port,
      ca,
      '/validate/fail',
      exec,
    );
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status?.message).toContain('deny-exec: exec is not allowed');
    await cluster.deleteClusterPolicy('no-exec');
  });

  it("answers a subresource review by its failure policy when discovery cannot tell the parent's kind", async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('no-scale', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [
          {
            name: 'deny-scale',
            match: { any: [{ resources: { kinds: ['Deployment/scale'] } }] },
            validate: { message: 'scaling is not allowed', deny: {} },
          },
        ],
      }),
    );
    const scale = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'scale-1',
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        subResource: 'scale',
        name: 'web',
        namespace: 'default',
        operation: 'UPDATE',
        userInfo: { username: 'tester' },
        object: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 50 } },
        oldObject: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 } },
      },
    };
    type Answer = { response: { allowed: boolean; status?: { message: string } } };
    cluster.apiServer.faults.failNext({ pathPrefix: '/apis/apps/v1', status: 503, count: 2 });
    // Not matched against Scale (which no policy names, so it would be admitted): denied on the Fail path...
    const fail = await postJson<Answer>(controller.port, ca, '/validate/fail', scale);
    expect(fail.body.response.allowed).toBe(false);
    expect(fail.body.response.status?.message).toMatch(
      /API discovery could not tell the kind of the deployments\/scale request's resource deployments \(apps\/v1\).*failure policy/,
    );
    // ...admitted on the Ignore path, as the API server would had the call failed.
    expect((await postJson<Answer>(controller.port, ca, '/validate/ignore', scale)).body.response.allowed).toBe(true);
    // Discovery back: the policy on Deployment/scale denies.
    const answered = await postJson<Answer>(controller.port, ca, '/validate/fail', scale);
    expect(answered.body.response.allowed).toBe(false);
    expect(answered.body.response.status?.message).toContain('deny-scale: scaling is not allowed');
    await cluster.deleteClusterPolicy('no-scale');
  });

  it('answers within the review deadline even while a policy holds the CPU', async () => {
    // Each of 5000 elements splits a 5000-character string: seconds of CPU in which no timer can
    // fire. The engine checks the deadline as it goes, and the webhook answers Fail's timeout denial.
    await createPolicy(
      clusterPolicy('cpu-heavy', {
        validationFailureAction: 'Enforce',
        failurePolicy: 'Fail',
        background: false,
        rules: [
          {
            name: 'spin',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            validate: {
              foreach: [
                {
                  list: "split(pad_right('a', `5000`, 'a'), '')",
                  deny: {
                    conditions: {
                      any: [
                        {
                          key: "{{ contains(split(pad_right(element, `5000`, 'b'), ''), 'c') }}",
                          operator: 'Equals',
                          value: true,
                        },
                      ],
                    },
                  },
                },
              ],
            },
          },
        ],
      }),
    );
    const podReview = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'heavy-1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        name: 'spun',
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'tester' },
        object: pod('spun', { team: 'a' }),
      },
    };
    const answer = await postJson<{ response: { allowed: boolean; status?: { message: string } } }>(
      controller.port,
      ca,
      '/validate/fail?timeout=1s',
      podReview,
    );
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status?.message).toMatch(
      /^policy evaluation did not finish within \d+ms; the request is denied because the webhook's failure policy is Fail$/,
    );
    await deletePolicy('cpu-heavy');
  });

  it('turns unready first when shutting down, then stops', async () => {
    // A connection that never sends a request: once closing, Node no longer times it out, and it
    // must not hold the stop (and the after-admission drain behind it) until the pod is killed.
    const silent = netConnect(controller.port, '127.0.0.1');
    silent.on('error', () => undefined);
    await new Promise((resolve) => silent.once('connect', resolve));
    controller.app.get(LifecycleState).beginShutdown();
    const ready = await get(controller.port, '/readyz', ca);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body).error).toMatchObject({ lifecycle: { status: 'down' } });
    await controller.stop();
    expect(silent.destroyed || silent.readableEnded).toBe(true);
    await expect(get(controller.port, '/healthz', ca)).rejects.toThrow(/ECONNREFUSED/);
  });
});
