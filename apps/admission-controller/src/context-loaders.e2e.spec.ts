/**
 * Context entries end to end: the real controller against the in-memory API server, policies with
 * `configMap`, `apiCall` and `globalReference` entries enforcing Pods created through the API
 * server's admission chain, and a namespaced Policy kept out of other namespaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { PolicyCache } from '@edict/policy';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { apiErrorMessage, clusterPolicy, postJson, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

/** Creates the Pod; answers 'created' or the API server's refusal message (its YAML line breaks folded). */
async function createPod(cluster: E2eCluster, namespace: string, name: string, labels: Record<string, string>) {
  try {
    await cluster.core.createNamespacedPod({ namespace, body: testPod(name, labels, namespace) });
    return 'created';
  } catch (error) {
    return apiErrorMessage(error).replace(/\s+/g, ' ');
  }
}

/** Polls an async check until it holds. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const podsIn = (namespace: string) => ({ any: [{ resources: { kinds: ['Pod'], namespaces: [namespace] } }] });

describe('context entries in the admission controller', () => {
  let cluster: E2eCluster;
  let controller: RunningController;

  const namespace = (name: string, labels: Record<string, string> = {}) =>
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  const configMap = (ns: string, name: string, data: Record<string, string>) =>
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
  const enforce = async (policy: ReturnType<typeof clusterPolicy>) => {
    await cluster.createClusterPolicy(policy);
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  };

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica({ adminEndpoints: true });
    for (const name of ['cm-test', 'api-test', 'frozen', 'gce-test', 'teams', 'shop']) {
      namespace(name, name === 'frozen' ? { frozen: 'true' } : {});
    }
  }, 30_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('a configMap entry: teams listed in the ConfigMap are admitted, others denied', async () => {
    configMap('default', 'allowed-teams', { teams: 'web,api' });
    await enforce(
      clusterPolicy('cm-teams', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [
          {
            name: 'known-team',
            match: podsIn('cm-test'),
            context: [{ name: 'allowed', configMap: { name: 'allowed-teams', namespace: 'default' } }],
            validate: {
              message: 'team {{ request.object.metadata.labels.team }} is not in {{ allowed.data.teams }}',
              deny: {
                conditions: {
                  any: [
                    {
                      key: "{{ request.object.metadata.labels.team || '' }}",
                      operator: 'AnyNotIn',
                      value: "{{ split(allowed.data.teams, ',') }}",
                    },
                  ],
                },
              },
            },
          },
        ],
      }),
    );
    expect(await createPod(cluster, 'cm-test', 'web-pod', { team: 'web' })).toBe('created');
    const denied = await createPod(cluster, 'cm-test', 'ops-pod', { team: 'ops' });
    expect(denied).toContain('cm-teams:');
    expect(denied).toContain('team ops is not in web,api');
  });

  it('the admin evaluate endpoint reads the same ConfigMap through the same loaders', async () => {
    const evaluate = (team: string) =>
      postJson<{ allowed: boolean; message?: string }>(
        controller.port,
        controller.caBundlePem(),
        '/admin/evaluate',
        testPod(`dry-${team}`, { team }, 'cm-test'),
      );
    expect((await evaluate('api')).body.allowed).toBe(true);
    const denied = await evaluate('ops');
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.message?.replace(/\s+/g, ' ')).toContain('team ops is not in web,api');
  });

  it("an apiCall entry reads the request's Namespace: a frozen namespace is denied, another admitted", async () => {
    await enforce(
      clusterPolicy('no-pods-in-frozen', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [
          {
            name: 'not-frozen',
            match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['api-test', 'frozen'] } }] },
            context: [
              {
                name: 'frozen',
                apiCall: {
                  urlPath: '/api/v1/namespaces/{{ request.namespace }}',
                  jmesPath: "metadata.labels.frozen || 'false'",
                },
              },
            ],
            validate: {
              message: 'namespace {{ request.namespace }} is frozen',
              deny: { conditions: { any: [{ key: '{{ frozen }}', operator: 'Equals', value: 'true' }] } },
            },
          },
        ],
      }),
    );
    expect(await createPod(cluster, 'api-test', 'ok', {})).toBe('created');
    expect(await createPod(cluster, 'frozen', 'blocked', {})).toContain('not-frozen: namespace frozen is frozen');
  });

  it('a GlobalContextEntry over ConfigMaps feeds a policy through a projection, and follows changes', async () => {
    configMap('teams', 'web', {});
    await cluster.custom.createClusterCustomObject({
      group: 'kyverno.io',
      version: 'v2alpha1',
      plural: 'globalcontextentries',
      body: {
        apiVersion: 'kyverno.io/v2alpha1',
        kind: 'GlobalContextEntry',
        metadata: { name: 'team-list' },
        spec: {
          kubernetesResource: { group: '', version: 'v1', resource: 'configmaps', namespace: 'teams' },
          projections: [{ name: 'names', jmesPath: '[].metadata.name' }],
        },
      },
    });
    await enforce(
      clusterPolicy('registered-teams', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [
          {
            name: 'registered-team',
            match: podsIn('gce-test'),
            context: [{ name: 'teams', globalReference: { name: 'team-list.names' } }],
            validate: {
              message: 'team {{ request.object.metadata.labels.team }} is not registered',
              deny: {
                conditions: {
                  any: [
                    {
                      key: "{{ request.object.metadata.labels.team || '' }}",
                      operator: 'AnyNotIn',
                      value: '{{ teams }}',
                    },
                  ],
                },
              },
            },
          },
        ],
      }),
    );
    // The entry's informer syncs on its own schedule: until then the rule errors (and Enforce denies).
    await until(
      async () => (await createPod(cluster, 'gce-test', 'web-1', { team: 'web' })) === 'created',
      'web admitted',
    );
    expect(await createPod(cluster, 'gce-test', 'ghost-1', { team: 'ghost' })).toContain(
      'team ghost is not registered',
    );
    configMap('teams', 'ghost', {});
    await until(
      async () => (await createPod(cluster, 'gce-test', `ghost-${Date.now()}`, { team: 'ghost' })) === 'created',
      'ghost admitted once registered',
    );
  });

  it("refuses a namespaced Policy's configMap and apiCall in another namespace, naming both namespaces", async () => {
    configMap('shop', 'limits', { max: '3' });
    await cluster.custom
      .createNamespacedCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        namespace: 'shop',
        plural: 'policies',
        body: {
          apiVersion: 'kyverno.io/v1',
          kind: 'Policy',
          metadata: { name: 'peek', namespace: 'shop' },
          spec: {
            validationFailureAction: 'Enforce',
            background: false,
            rules: [
              {
                name: 'own-configmap',
                match: { any: [{ resources: { kinds: ['Pod'] } }] },
                context: [{ name: 'limits', configMap: { name: 'limits', namespace: 'shop' } }],
                validate: {
                  message: 'limits read',
                  deny: { conditions: { any: [{ key: '{{ limits.data.max }}', operator: 'Equals', value: 'none' }] } },
                },
              },
              {
                name: 'other-configmap',
                match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { peek: 'configmap' } } } }] },
                context: [{ name: 'teams', configMap: { name: 'allowed-teams', namespace: 'default' } }],
                validate: {
                  message: 'x',
                  deny: { conditions: { any: [{ key: '{{ teams.data.teams }}', operator: 'Equals', value: 'none' }] } },
                },
              },
              {
                name: 'other-api',
                match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { peek: 'api' } } } }] },
                context: [{ name: 'secrets', apiCall: { urlPath: '/api/v1/namespaces/default/secrets' } }],
                validate: {
                  message: 'x',
                  deny: { conditions: { any: [{ key: '{{ secrets.kind }}', operator: 'Equals', value: 'none' }] } },
                },
              },
            ],
          },
        },
      })
      .catch((error: unknown) => {
        throw new Error(apiErrorMessage(error));
      });
    await eventually(
      () =>
        controller.app
          .get(PolicyCache)
          .policies()
          .some((policy) => policy.key === 'shop/peek'),
      'Policy shop/peek in the cache',
    );
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    // Its own namespace's ConfigMap loads: the Pod is admitted.
    expect(await createPod(cluster, 'shop', 'plain', {})).toBe('created');
    const configMapPeek = await createPod(cluster, 'shop', 'cm-peek', { peek: 'configmap' });
    expect(configMapPeek).toContain('other-configmap');
    expect(configMapPeek).toContain(
      'a Policy in namespace "shop" may read ConfigMaps of its own namespace only, not of "default"',
    );
    const apiPeek = await createPod(cluster, 'shop', 'api-peek', { peek: 'api' });
    expect(apiPeek).toContain('other-api');
    expect(apiPeek).toContain('a Policy in namespace "shop" may call paths in its own namespace only');
    expect(apiPeek).toContain('not namespace "default"');
  });
});
