/**
 * Installed under Kyverno's names (EDICT_INSTALL_NAME=kyverno): what the controller writes into the
 * cluster carries exactly the names a Kyverno installation has, so Kyverno's runbooks and end-to-end
 * suite find them, and policies are still enforced through them.
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { WebhookRemoval } from '@edict/webhook-config';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { AdmissionConfigService } from '@edict/policy';
import { apiErrorMessage, requireLabelPolicy, testPod, waitForWebhook } from '@edict/controller-runtime/testing';

const ADMISSION = 'admissionregistration.k8s.io/v1';
const MANAGED_BY = { 'webhook.kyverno.io/managed-by': 'kyverno' };

interface StoredConfiguration {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  webhooks?: Array<{ name: string; clientConfig: { service?: { name: string; namespace: string; path: string } } }>;
}

describe('installed under the install name `kyverno`', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  const configurations = (kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration') =>
    cluster.apiServer.list(ADMISSION, kind) as unknown as StoredConfiguration[];

  beforeAll(async () => {
    cluster = await startE2eCluster({ installName: 'kyverno' });
    controller = await cluster.startReplica({ webhookMonitorIntervalMs: 200 });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.kyverno.svc');
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'kyverno-svc.kyverno.svc');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('publishes Kyverno’s webhook configurations, labelled as Kyverno labels them, calling kyverno-svc', async () => {
    await eventually(
      () =>
        configurations('ValidatingWebhookConfiguration').length +
          configurations('MutatingWebhookConfiguration').length >=
        5,
      'five webhook configurations published',
    );
    const summary = (kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration') =>
      configurations(kind)
        .map(({ metadata, webhooks }) => ({ name: metadata.name, labels: metadata.labels, webhooks: webhooks ?? [] }))
        .sort((a, b) => a.name.localeCompare(b.name));
    const validating = summary('ValidatingWebhookConfiguration');
    expect(validating.map(({ name, labels }) => ({ name, labels }))).toEqual([
      { name: 'kyverno-exception-validating-webhook-cfg', labels: MANAGED_BY },
      { name: 'kyverno-global-context-validating-webhook-cfg', labels: MANAGED_BY },
      { name: 'kyverno-policy-validating-webhook-cfg', labels: MANAGED_BY },
      { name: 'kyverno-resource-validating-webhook-cfg', labels: MANAGED_BY },
    ]);
    expect(summary('MutatingWebhookConfiguration').map(({ name, labels }) => ({ name, labels }))).toEqual([
      { name: 'kyverno-resource-mutating-webhook-cfg', labels: MANAGED_BY },
    ]);
    const policyHook = validating.find((c) => c.name === 'kyverno-policy-validating-webhook-cfg')!.webhooks[0]!;
    expect(policyHook).toMatchObject({
      name: 'validate-policy.kyverno.svc',
      clientConfig: { service: { name: 'kyverno-svc', namespace: 'kyverno', path: '/policyvalidate' } },
    });
    const exceptionHook = validating.find((c) => c.name === 'kyverno-exception-validating-webhook-cfg')!.webhooks[0]!;
    expect(exceptionHook).toMatchObject({
      name: 'kyverno-svc.kyverno.svc',
      clientConfig: { service: { name: 'kyverno-svc', namespace: 'kyverno' } },
    });
    const contextHook = validating.find((c) => c.name === 'kyverno-global-context-validating-webhook-cfg')!
      .webhooks[0]!;
    expect(contextHook).toMatchObject({
      name: 'kyverno-svc.kyverno.svc',
      clientConfig: { service: { name: 'kyverno-svc', namespace: 'kyverno', path: '/globalcontextvalidate' } },
    });
    // Nothing under Edict's default names.
    const all = [
      ...configurations('ValidatingWebhookConfiguration'),
      ...configurations('MutatingWebhookConfiguration'),
    ];
    expect(all.filter(({ metadata }) => metadata.name.startsWith('edict'))).toEqual([]);
  });

  it('keeps its CA and serving certificate in Kyverno’s Secrets, for kyverno-svc.kyverno.svc', async () => {
    for (const name of ['kyverno-svc.kyverno.svc.kyverno-tls-ca', 'kyverno-svc.kyverno.svc.kyverno-tls-pair']) {
      const secret = await cluster.core.readNamespacedSecret({ name, namespace: 'kyverno' });
      expect(secret.type, name).toBe('kubernetes.io/tls');
      expect(secret.metadata?.labels, name).toEqual({ 'cert.kyverno.io/managed-by': 'kyverno' });
    }
    const pair = await cluster.core.readNamespacedSecret({
      name: 'kyverno-svc.kyverno.svc.kyverno-tls-pair',
      namespace: 'kyverno',
    });
    const certificate = new X509Certificate(Buffer.from(pair.data!['tls.crt']!, 'base64'));
    expect(certificate.subjectAltName).toContain('DNS:kyverno-svc.kyverno.svc');
    expect(certificate.checkHost('kyverno-svc.kyverno.svc')).toBe('kyverno-svc.kyverno.svc');
  });

  it('leads through the Lease `kyverno` in namespace `kyverno`', () => {
    const lease = cluster.apiServer.get('coordination.k8s.io/v1', 'Lease', 'kyverno', 'kyverno');
    expect((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity).toBeTruthy();
    const leases = cluster.apiServer.list('coordination.k8s.io/v1', 'Lease') as unknown as StoredConfiguration[];
    expect(leases.map(({ metadata }) => metadata.name)).toEqual(['kyverno']);
  });

  it('stamps its heartbeat as kyverno.io/last-request-time', async () => {
    await eventually(
      () =>
        configurations('ValidatingWebhookConfiguration').find(
          ({ metadata }) => metadata.name === 'kyverno-resource-validating-webhook-cfg',
        )?.metadata.annotations?.['kyverno.io/last-request-time'] !== undefined,
      'heartbeat annotation',
    );
  });

  it('reads the ConfigMap `kyverno` in namespace `kyverno`', async () => {
    await cluster.core.createNamespacedConfigMap({
      namespace: 'kyverno',
      body: { metadata: { name: 'kyverno', namespace: 'kyverno' }, data: { exceptionNamespaces: 'policies' } },
    });
    const config = controller.app.get(AdmissionConfigService);
    await eventually(() => config.current().exceptionNamespaces.includes('policies'), 'the ConfigMap applied');
  });

  it('enforces a policy through validate.kyverno.svc-fail', async () => {
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.kyverno.svc-fail', 'pods');
    const error = await cluster.core
      .createNamespacedPod({ namespace: 'default', body: testPod('blocked') })
      .catch((e: unknown) => e);
    expect(apiErrorMessage(error)).toContain('admission webhook "validate.kyverno.svc-fail" denied the request: ');
    await expect(
      cluster.core.createNamespacedPod({ namespace: 'default', body: testPod('allowed', { team: 'a' }) }),
    ).resolves.toMatchObject({ metadata: { name: 'allowed' } });
  });

  it('removes, when asked, every configuration carrying Kyverno’s managed-by label, and only those', async () => {
    const labelled = (name: string, labels: Record<string, string>) => ({
      apiVersion: ADMISSION,
      kind: 'MutatingWebhookConfiguration',
      metadata: { name, labels },
      webhooks: [],
    });
    cluster.apiServer.create(labelled('kyverno-verify-mutating-webhook-cfg', MANAGED_BY));
    cluster.apiServer.create(labelled('other-webhook-cfg', { 'webhook.edict.io/managed-by': 'edict' }));
    const deleted = await controller.app.get(WebhookRemoval).removeAll();
    expect(deleted.sort()).toEqual([
      'MutatingWebhookConfiguration/kyverno-resource-mutating-webhook-cfg',
      'MutatingWebhookConfiguration/kyverno-verify-mutating-webhook-cfg',
      'ValidatingWebhookConfiguration/kyverno-exception-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/kyverno-global-context-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/kyverno-policy-validating-webhook-cfg',
      'ValidatingWebhookConfiguration/kyverno-resource-validating-webhook-cfg',
    ]);
    expect(configurations('MutatingWebhookConfiguration').map(({ metadata }) => metadata.name)).toEqual([
      'other-webhook-cfg',
    ]);
  });
});
