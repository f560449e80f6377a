/**
 * Swagger and the admin endpoints end to end: a replica with them on (the Service points at it) and
 * one with EDICT_ADMIN_ENDPOINTS=false, against the in-memory API server, with real policies.
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CelPolicyCache } from '@edict/policy';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  clusterPolicy,
  httpsCall,
  postJson,
  requireLabelPolicy,
  testPod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

const MAX_BODY_BYTES = 64 * 1024;

/** `eventually` for checks that must call the server. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Trace {
  webhook: string;
  stage: string;
  policy: string;
  rule: string;
  type: string;
  status: string;
  message: string;
  failureAction?: string;
  policyDurationMs?: number;
  patch?: unknown[];
}

interface Evaluation {
  request: { kind: { kind: string }; namespace?: string; operation: string };
  allowed: boolean;
  message?: string;
  warnings: string[];
  patch?: Array<{ op: string; path: string; value?: unknown }>;
  webhooks: Array<{ webhook: string; allowed: boolean; policies: string[] }>;
  trace: Trace[];
  updateRequests: unknown[];
  mutatingPolicies: Array<{
    policy: string;
    status: string;
    patch: unknown[];
    mutatedResource?: Record<string, unknown>;
  }>;
  generatingPolicies: Array<{ policy: string; status: string; generated: Array<Record<string, unknown>> }>;
  deletingPolicies: Array<{ policy: string; wouldDelete: boolean; result: string; reason?: string }>;
}

describe('admin endpoints and Swagger', () => {
  let cluster: E2eCluster;
  let admin: RunningController;
  let quiet: RunningController;
  let ca: string;
  const get = async <T = unknown>(path: string, replica = admin) => {
    const answer = await httpsCall(replica.port, ca, path);
    return { status: answer.status, body: answer.body, json: () => JSON.parse(answer.body) as T };
  };
  const evaluate = (body: unknown) => postJson<Evaluation>(admin.port, ca, '/admin/evaluate', body);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    quiet = await cluster.startReplica({ adminEndpoints: false });
    // Started last: the Service (and so the API server's webhook calls) points at this one.
    admin = await cluster.startReplica({ maxBodyBytes: MAX_BODY_BYTES, adminEndpoints: true });
    ca = admin.caBundlePem();
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    await cluster.createClusterPolicy(
      clusterPolicy('add-env', {
        rules: [
          {
            name: 'add-env-label',
            match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
            mutate: { patchStrategicMerge: { metadata: { labels: { env: 'dev' } } } },
          },
        ],
      }),
    );
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  describe('Swagger', () => {
    it('serves the UI at /docs', async () => {
      const answer = await get('/docs');
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('<html');
      expect(answer.body.toLowerCase()).toContain('swagger');
    });

    it('describes every admin path and the DTOs at /docs-json', async () => {
      const answer = await get<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(
        '/docs-json',
      );
      expect(answer.status).toBe(200);
      const document = answer.json();
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining([
          '/admin/policies',
          '/admin/policies/{name}',
          '/admin/policies/{namespace}/{name}',
          '/admin/evaluate',
          '/admin/leader',
          '/admin/certificates',
          '/admin/webhooks',
          '/admin/queues',
        ]),
      );
      expect(Object.keys(document.components.schemas)).toEqual(
        expect.arrayContaining([
          'EvaluationDto',
          'RuleTraceDto',
          'EvaluateResourceDto',
          'PolicyCacheStateDto',
          'LeaderStateDto',
          'CertificatesDto',
          'WebhooksDto',
          'QueuesDto',
        ]),
      );
      const trace = document.components.schemas['RuleTraceDto'] as { properties: Record<string, unknown> };
      expect(Object.keys(trace.properties)).toEqual(
        expect.arrayContaining(['policy', 'rule', 'type', 'status', 'message', 'policyDurationMs', 'patch']),
      );
    });

    it('is off, with every admin path, when EDICT_ADMIN_ENDPOINTS is false', async () => {
      for (const path of ['/docs', '/docs-json', '/admin/policies', '/admin/leader'])
        expect((await get(path, quiet)).status, path).toBe(404);
      const evaluation = await postJson(quiet.port, ca, '/admin/evaluate', testPod('web'));
      expect(evaluation.status).toBe(404);
      // The webhooks themselves still serve.
      expect((await get('/healthz', quiet)).status).toBe(200);
    });
  });

  describe('GET /admin/policies', () => {
    it('lists the loaded policies with the autogen rules the engine runs', async () => {
      const answer = await get<{
        synced: boolean;
        policies: Array<{ key: string; failurePolicy: string; rules: Array<{ name: string; autogen: boolean }> }>;
        invalid: unknown[];
        exceptions: unknown[];
      }>('/admin/policies');
      expect(answer.status).toBe(200);
      const state = answer.json();
      expect(state.synced).toBe(true);
      const policy = state.policies.find((p) => p.key === 'require-team');
      expect(policy?.failurePolicy).toBe('Fail');
      expect(policy?.rules).toEqual([
        { name: 'check-team', types: ['validate'], autogen: false },
        { name: 'autogen-check-team', types: ['validate'], autogen: true },
        { name: 'autogen-cronjob-check-team', types: ['validate'], autogen: true },
      ]);
    });

    it('shows one policy as the engine runs it, and 404 for an unknown one', async () => {
      const answer = await get<{ status: string; loaded: { policy: { spec: { rules: Array<{ name: string }> } } } }>(
        '/admin/policies/require-team',
      );
      expect(answer.status).toBe(200);
      const lookup = answer.json();
      expect(lookup.status).toBe('loaded');
      const autogen = lookup.loaded.policy.spec.rules[1] as { name: string; match: unknown };
      expect(autogen.name).toBe('autogen-check-team');
      expect(JSON.stringify(autogen.match)).toContain('Deployment');

      const missing = await get<{ message: string }>('/admin/policies/no-such-policy');
      expect(missing.status).toBe(404);
      expect(missing.json().message).toBe('no policy no-such-policy in the policy cache');
      expect((await get('/admin/policies/team-a/no-such-policy')).status).toBe(404);
    });

    it('keeps an invalid policy out of the cache and says why', async () => {
      // Stored directly (no validation webhook on this path), as a policy written before Edict ran.
      const create = (object: unknown) =>
        cluster.apiServer.create(object as Parameters<E2eCluster['apiServer']['create']>[0]);
      create(
        clusterPolicy('broken', {
          rules: [
            {
              name: 'both',
              match: { any: [{ resources: { kinds: ['Pod'] } }], all: [{ resources: { kinds: ['Pod'] } }] },
              validate: { message: 'x', pattern: { metadata: { name: '?*' } } },
            },
          ],
        }),
      );
      await until(
        async () => (await get<{ invalid: Array<{ key: string }> }>('/admin/policies')).json().invalid.length > 0,
        'the invalid policy in the cache',
      );
      const state = (
        await get<{ invalid: Array<{ key: string; problems: Array<{ message: string }> }> }>('/admin/policies')
      ).json();
      const broken = state.invalid.find((p) => p.key === 'broken');
      expect(broken?.problems.length).toBeGreaterThan(0);
      const lookup = (await get<{ status: string }>('/admin/policies/broken')).json();
      expect(lookup.status).toBe('invalid');
    });
  });

  describe('POST /admin/evaluate', () => {
    it('denies a Pod the Enforce policy blocks, with the rule in the trace', async () => {
      const answer = await evaluate(testPod('web'));
      expect(answer.status).toBe(200);
      const result = answer.body;
      expect(result.allowed).toBe(false);
      expect(result.message).toContain('resource Pod/default/web was blocked due to the following policies');
      expect(result.request).toMatchObject({ kind: { kind: 'Pod' }, namespace: 'default', operation: 'CREATE' });
      expect(result.webhooks.find((step) => !step.allowed)).toMatchObject({
        webhook: 'validate/fail',
        policies: ['require-team'],
      });
      expect(result.trace).toEqual([
        expect.objectContaining({
          webhook: 'validate/fail',
          stage: 'admission',
          policy: 'require-team',
          rule: 'check-team',
          type: 'Validation',
          status: 'fail',
          failureAction: 'Enforce',
          message: expect.stringContaining("label 'team' is required"),
          policyDurationMs: expect.any(Number),
        }),
      ]);
    });

    it('puts a Pod sent without a namespace in default, as kubectl would (kubectl run --dry-run=client -o json)', async () => {
      const bare = testPod('web');
      const answer = await evaluate({ ...bare, metadata: { name: 'web' } });
      expect(answer.body.request).toMatchObject({ namespace: 'default', resource: { resource: 'pods' } });
      expect(answer.body.message).toContain('resource Pod/default/web was blocked');
    });

    it('runs the autogen rule for a Deployment', async () => {
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'api', namespace: 'default' },
        spec: {
          selector: { matchLabels: { app: 'api' } },
          template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } },
        },
      };
      const result = (await evaluate({ resource: deployment, userInfo: { username: 'alice' } })).body;
      expect(result.allowed).toBe(false);
      expect(result.trace.map((t) => [t.rule, t.status])).toEqual([['autogen-check-team', 'fail']]);
    });

    it('takes a whole AdmissionReview and admits a compliant Pod', async () => {
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'evaluate-1',
          kind: { group: '', version: 'v1', kind: 'Pod' },
          resource: { group: '', version: 'v1', resource: 'pods' },
          name: 'ok',
          namespace: 'default',
          operation: 'CREATE',
          userInfo: { username: 'alice' },
          object: testPod('ok', { team: 'a' }),
        },
      };
      const result = (await evaluate(review)).body;
      expect(result.allowed).toBe(true);
      expect(result.trace).toEqual([expect.objectContaining({ rule: 'check-team', status: 'pass' })]);
    });

    it('returns the mutation patch, per rule too', async () => {
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
      const result = (await evaluate(configMap)).body;
      expect(result.allowed).toBe(true);
      expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { env: 'dev' } }]);
      expect(result.trace).toEqual([
        expect.objectContaining({
          webhook: 'mutate/fail',
          policy: 'add-env',
          rule: 'add-env-label',
          status: 'pass',
          patch: [{ op: 'add', path: '/metadata/labels', value: { env: 'dev' } }],
        }),
      ]);
    });

    it('answers 400 naming the field, and 413 above the body limit', async () => {
      const bad = await postJson<{ message: string }>(admin.port, ca, '/admin/evaluate', { resource: { kind: 'Pod' } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('resource.apiVersion: must be a non-empty string');
      const operation = await postJson<{ message: string }>(admin.port, ca, '/admin/evaluate', {
        resource: testPod('x'),
        operation: 'PATCH',
      });
      expect(operation.status).toBe(400);
      expect(operation.body.message).toMatch(/^operation: must be one of/);

      const huge = testPod('huge', { blob: 'x'.repeat(MAX_BODY_BYTES) });
      const tooLarge = await httpsCall(admin.port, ca, '/admin/evaluate', {
        payload: Buffer.from(JSON.stringify(huge)),
      }).catch(() => ({ status: 413, body: '' }));
      expect(tooLarge.status).toBe(413);
    });

    it('runs the MutatingPolicies, GeneratingPolicies and DeletingPolicies in the cluster, writing nothing', async () => {
      const celPolicy = (kind: string, name: string, spec: Record<string, unknown>) =>
        cluster.custom.createClusterCustomObject({
          group: 'policies.kyverno.io',
          version: 'v1',
          plural: kind.toLowerCase().replace(/y$/, 'ies'),
          body: { apiVersion: 'policies.kyverno.io/v1', kind, metadata: { name }, spec },
        });
      const onSecrets = {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }],
      };
      await celPolicy('MutatingPolicy', 'label-secrets', {
        matchConstraints: onSecrets,
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"owner": "edict"}}}' },
          },
        ],
      });
      await celPolicy('GeneratingPolicy', 'secret-audit', {
        matchConstraints: onSecrets,
        generate: [
          {
            expression:
              'generator.Apply(object.metadata.namespace, [{"apiVersion": "v1", "kind": "ConfigMap", ' +
              '"metadata": dyn({"name": object.metadata.name + "-audit"}), "data": dyn({"owner": object.metadata.labels.owner})}])',
          },
        ],
      });
      await celPolicy('DeletingPolicy', 'drop-owned-secrets', {
        schedule: '0 * * * *',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] },
        conditions: [{ name: 'owned', expression: 'has(object.metadata.labels.owner)' }],
      });
      const cache = admin.app.get(CelPolicyCache);
      await until(
        async () =>
          cache.mutatingPolicies().length > 0 &&
          cache.generatingPolicies().length > 0 &&
          cache.deletingPolicies().length > 0,
        'the CEL policies in the cache',
      );
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'default' } };
      const result = (await evaluate(secret)).body;
      expect(result.allowed).toBe(true);
      expect(result.mutatingPolicies).toEqual([
        expect.objectContaining({
          policy: 'label-secrets',
          status: 'pass',
          patch: [{ op: 'add', path: '/metadata/labels', value: { owner: 'edict' } }],
        }),
      ]);
      expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { owner: 'edict' } }]);
      expect(result.generatingPolicies).toEqual([
        expect.objectContaining({
          policy: 'secret-audit',
          status: 'pass',
          generated: [
            expect.objectContaining({
              kind: 'ConfigMap',
              metadata: expect.objectContaining({ name: 'token-audit', namespace: 'default' }),
              data: { owner: 'edict' },
            }),
          ],
        }),
      ]);
      // The mutated Secret carries the owner label: the DeletingPolicy would delete it.
      expect(result.deletingPolicies).toEqual([
        expect.objectContaining({ policy: 'drop-owned-secrets', wouldDelete: true, result: 'delete' }),
      ]);
      const names = (kind: string) =>
        cluster.apiServer.list('v1', kind).map((object) => (object.metadata as { name?: string } | undefined)?.name);
      expect(names('ConfigMap')).not.toContain('token-audit');
      expect(names('Secret')).not.toContain('token');
    });

    it('leaves no trace: no policy metrics, reports or update requests', async () => {
      await evaluate(testPod('quiet'));
      const metrics = await get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).not.toMatch(/kyverno_policy_results_total\{[^}]*policy_name="require-team"/);
      expect(metrics.body).not.toMatch(/kyverno_admission_requests_total\{[^}]*resource_kind="Pod"/);
      const stored = (apiVersion: string, kind: string) => {
        try {
          return cluster.apiServer.list(apiVersion, kind).length;
        } catch {
          return 0;
        }
      };
      expect(stored('reports.kyverno.io/v1', 'EphemeralReport')).toBe(0);
      expect(stored('kyverno.io/v2', 'UpdateRequest')).toBe(0);
    });
  });

  describe('state endpoints', () => {
    it('GET /admin/leader: identity, leadership, holder and lease timings', async () => {
      await until(
        async () => (await get<{ holder?: string }>('/admin/leader')).json().holder !== undefined,
        'a leader',
      );
      const mine = (await get<Record<string, unknown>>('/admin/leader')).json();
      const theirs = (await get<Record<string, unknown>>('/admin/leader', quiet)).status;
      expect(theirs).toBe(404);
      expect(mine).toMatchObject({
        identity: expect.any(String),
        isLeader: expect.any(Boolean),
        holder: expect.any(String),
        leaseName: 'edict-admission-controller',
        leaseNamespace: 'edict',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 200,
        leaseValid: true,
      });
      expect(mine['isLeader']).toBe(mine['holder'] === mine['identity']);
      expect(Date.parse(mine['leaseExpiresAt'] as string)).toBeGreaterThan(Date.parse(mine['observedAt'] as string));
    });

    it('GET /admin/certificates: CA and serving certificate, never a key', async () => {
      const answer = await get<{
        ready: boolean;
        serving: {
          subjectAltNames: string[];
          fingerprint256: string;
          isCa: boolean;
          notAfter: string;
          renewalDueAt: string;
        };
        ca: Array<{ isCa: boolean; fingerprint256: string }>;
        nextRenewalAt: string;
      }>('/admin/certificates');
      expect(answer.status).toBe(200);
      expect(answer.body).not.toMatch(/PRIVATE KEY|keyPem/);
      const certificates = answer.json();
      expect(certificates.ready).toBe(true);
      expect(certificates.serving.subjectAltNames).toContain('DNS:edict-svc.edict.svc');
      expect(certificates.serving.isCa).toBe(false);
      expect(Date.parse(certificates.serving.renewalDueAt)).toBeLessThan(Date.parse(certificates.serving.notAfter));
      expect(certificates.ca[0]?.isCa).toBe(true);
      expect(certificates.ca[0]?.fingerprint256).toBe(new X509Certificate(ca).fingerprint256);
      expect(Date.parse(certificates.nextRenewalAt)).toBeGreaterThan(Date.now());
    });

    it('GET /admin/webhooks: the configurations in the cluster next to the desired ones', async () => {
      await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
      await until(async () => {
        const state = (
          await get<{ configurations: Array<{ name: string; inSync: boolean }> }>('/admin/webhooks')
        ).json();
        return state.configurations.some((c) => c.name === 'edict-resource-validating-webhook-cfg' && c.inSync);
      }, 'the validating configuration in sync');
      const state = (
        await get<{
          isLeader: boolean;
          desiredComplete: boolean;
          configurations: Array<{
            kind: string;
            name: string;
            inSync: boolean;
            inCluster?: { webhooks: Array<{ name: string }> };
            desired?: { webhooks: Array<{ name: string; rules: Array<{ resources: string[] }> }> };
          }>;
        }>('/admin/webhooks')
      ).json();
      expect(state.desiredComplete).toBe(true);
      const validating = state.configurations.find((c) => c.name === 'edict-resource-validating-webhook-cfg');
      expect(validating?.kind).toBe('ValidatingWebhookConfiguration');
      expect(validating?.inCluster?.webhooks.map((w) => w.name)).toContain('validate.edict.svc-fail');
      const fail = validating?.desired?.webhooks.find((w) => w.name === 'validate.edict.svc-fail');
      expect(fail?.rules.flatMap((r) => r.resources)).toEqual(expect.arrayContaining(['pods', 'deployments']));
      expect(state.configurations.map((c) => c.name)).toEqual(
        expect.arrayContaining(['edict-resource-mutating-webhook-cfg', 'edict-policy-validating-webhook-cfg']),
      );
    });

    it('GET /admin/queues: the review limiter and the audit report queue', async () => {
      const answer = await get<{
        reviews: { inFlight: number; queued: number; maxInFlight: number; maxQueued: number };
        auditReports: { wired: boolean; depth?: number };
        others: unknown[];
      }>('/admin/queues');
      expect(answer.status).toBe(200);
      const queues = answer.json();
      expect(queues.reviews).toEqual({ inFlight: 0, queued: 0, maxInFlight: 64, maxQueued: 512 });
      expect(queues.auditReports).toMatchObject({ wired: true, depth: expect.any(Number), capacity: 1000 });
      expect(queues.others).toEqual([
        expect.objectContaining({ name: 'after-admission', depth: expect.any(Number), capacity: 1000 }),
        expect.objectContaining({ name: 'update-requests', depth: expect.any(Number) }),
        expect.objectContaining({ name: 'events', depth: expect.any(Number), capacity: 1000 }),
      ]);
    });
  });
});
