/**
 * verifyImages end to end: the controller (its registry allowed to reach loopback, plain HTTP for
 * the local registry) publishes its webhooks on the in-memory API server; Pods naming images in
 * Debian's docker-registry, one signed by the test with a notation signature, are admitted or denied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import { createTestCa, notationSign, pushImage, type OciWriter, type TestCa } from '@edict/image-verify/testing';
import { registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { apiErrorMessage as messageOf, clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';

describe('verifyImages through the admission webhooks and a real registry', () => {
  let cluster: E2eCluster;
  let core: CoreV1Api;
  let registry: LocalRegistry;
  let root: TestCa;
  let repo: string;
  let signedDigest: string;
  const client = registryClientForTests();

  beforeAll(async () => {
    registry = await startLocalRegistry();
    repo = `${registry.host}/team/app`;
    root = await createTestCa();
    const leaf = await root.issue({ commonName: 'release signer' });
    const writer = client.oci({ allowInsecure: true }) as unknown as OciWriter;
    signedDigest = (await pushImage(writer, repo, 'signed')).digest;
    await pushImage(writer, repo, 'unsigned');
    await notationSign(writer, `${repo}:signed`, { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem });

    cluster = await startE2eCluster();
    await cluster.startReplica({ registryAllowedAddresses: ['127.0.0.1'], insecureRegistries: [registry.host] });
    core = cluster.core;
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    await cluster.createClusterPolicy(
      clusterPolicy('signed-images', {
        validationFailureAction: 'Enforce',
        rules: [
          {
            name: 'notary',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            verifyImages: [
              {
                type: 'Notary',
                imageReferences: [`${repo}*`],
                attestors: [{ entries: [{ certificates: { cert: root.certPem } }] }],
              },
            ],
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'MutatingWebhookConfiguration', 'mutate.edict.svc-fail', 'pods');
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    client.close();
    await registry?.stop();
  });

  const pod = (name: string, image: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app', image }] },
  });

  it('admits the signed image pinned to its digest, with the verify-images annotation', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('signed', `${repo}:signed`) });
    const stored = await core.readNamespacedPod({ namespace: 'default', name: 'signed' });
    expect(stored.spec?.containers[0]?.image).toBe(`${repo}:signed@${signedDigest}`);
    expect(stored.metadata?.annotations?.['kyverno.io/verify-images']).toBe(
      JSON.stringify({ [`${repo}@${signedDigest}`]: 'pass' }),
    );
  });

  it('denies the unsigned image with the verification failure', async () => {
    const error = await core
      .createNamespacedPod({ namespace: 'default', body: pod('unsigned', `${repo}:unsigned`) })
      .catch((e: unknown) => e);
    const message = messageOf(error);
    expect(message).toContain('admission webhook "mutate.edict.svc-fail" denied the request');
    expect(message).toContain(`failed to verify image ${repo}:unsigned`);
  });

  it('denies a forged annotation on an unverified image', async () => {
    const forged = pod('forged', `${repo}@${signedDigest}`);
    const error = await core
      .createNamespacedPod({
        namespace: 'default',
        body: {
          ...forged,
          metadata: {
            ...forged.metadata,
            annotations: { 'kyverno.io/verify-images': JSON.stringify({ [`${repo}:unsigned`]: 'pass' }) },
          },
          spec: { containers: [{ name: 'app', image: `${repo}:unsigned` }] },
        },
      })
      .catch((e: unknown) => e);
    expect(messageOf(error)).toContain(`failed to verify image ${repo}:unsigned`);
  });
});
