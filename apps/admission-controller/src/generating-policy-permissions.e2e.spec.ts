/**
 * End to end with RBAC: a cluster GeneratingPolicy is refused at policy admission when its author
 * may not write what it generates (asked with SubjectAccessReviews about the requesting user), or
 * when the background controller may not; the refusal names the generate entry and the missing
 * verbs. A literal namespace is asked there, a dynamic one cluster-wide.
 */
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { waitForWebhook } from '@edict/controller-runtime/testing';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';

const BACKGROUND = 'system:serviceaccount:edict:edict-background-controller';

const gpol = (name: string, expression: string) => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'GeneratingPolicy',
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
    },
    generate: [{ expression }],
  },
});

const into = (namespace: string, kind = 'ConfigMap') =>
  `generator.Apply(${namespace}, [{"apiVersion": "v1", "kind": "${kind}", "metadata": {"name": "generated"}}])`;

describe('GeneratingPolicy admission: who may generate where', () => {
  let cluster: E2eCluster;
  let alice: CustomObjectsApi;
  const create = (object: JsonObject) => cluster.apiServer.create(object);
  const submit = (policy: ReturnType<typeof gpol>) =>
    alice.createClusterCustomObject({
      group: 'policies.kyverno.io',
      version: 'v1',
      plural: 'generatingpolicies',
      body: policy,
    });
  const stored = (name: string) => cluster.apiServer.get('policies.kyverno.io/v1', 'GeneratingPolicy', name);

  beforeAll(async () => {
    cluster = await startE2eCluster({ rbac: true });
    for (const name of ['allowed', 'target']) create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // Alice (group authors) may create GeneratingPolicies, and ConfigMaps and Secrets in `allowed` only.
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'policy-author' },
      rules: [{ apiGroups: ['policies.kyverno.io'], resources: ['generatingpolicies'], verbs: ['create', 'get'] }],
    });
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'policy-authors' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'policy-author' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'authors' }],
    });
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'writer', namespace: 'allowed' },
      rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'create', 'update', 'delete'] }],
    });
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'writer', namespace: 'allowed' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'authors' }],
    });
    // The background controller may write ConfigMaps everywhere, and no Secrets.
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'background' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'delete'] }],
    });
    create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'background' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'background' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: BACKGROUND }],
    });
    await cluster.startReplica({ backgroundUsername: BACKGROUND });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    const config = new KubeConfig();
    config.loadFromString(await cluster.kubeconfigAs('alice', ['authors']));
    alice = config.makeApiClient(CustomObjectsApi);
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('refuses a policy generating into a namespace its author cannot write, naming the field', async () => {
    await expect(submit(gpol('into-target', into('"target"')))).rejects.toThrow(
      /spec\.generate\[0\]\.expression: policy author \W*alice\W* is not authorized: requires permissions get,create for resource v1\/ConfigMap in namespace target/,
    );
    expect(stored('into-target')).toBeUndefined();
  });

  it('admits a policy generating into a namespace its author can write', async () => {
    await submit(gpol('into-allowed', into('"allowed"')));
    expect(stored('into-allowed')).toBeDefined();
  });

  it('asks for a namespace decided at generation cluster-wide', async () => {
    await expect(submit(gpol('into-trigger', into('object.metadata.name')))).rejects.toThrow(
      /requires permissions get,create for resource v1\/ConfigMap in all namespaces/,
    );
    expect(stored('into-trigger')).toBeUndefined();
  });

  it('refuses what the background controller may not write, even when the author may', async () => {
    await expect(submit(gpol('secret-into-allowed', into('"allowed"', 'Secret')))).rejects.toThrow(
      /spec\.generate\[0\]\.expression: system:serviceaccount:edict:edict-background-controller requires permissions get,create for resource v1\/Secret in namespace allowed; grant them to the background controller/,
    );
    expect(stored('secret-into-allowed')).toBeUndefined();
  });
});
