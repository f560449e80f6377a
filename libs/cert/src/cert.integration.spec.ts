// CertModule against the in-memory API server: Secrets, renewal, rotation, leader gate, watch.
import { X509Certificate } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { Logger } from '@nestjs/common';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_BY_LABEL } from './cert.constants';
import { CertOptionsError } from './cert.options';
import { CertModule } from './cert.module';
import { parseCertificates } from './crypto/pem';
import { ALWAYS_LEADER, NEVER_LEADER } from '@edict/leader';
import { ManualClock, TestLeaderGate, kubeConfigFromString, startCertReplica, type CertReplica } from './testing';

const HOUR = 3_600_000;
let server: InMemoryApiServer;
let kubeconfig: string;
let core: CoreV1Api;
let replicas: CertReplica[] = [];
let namespaceCount = 0;

Logger.overrideLogger(false);

beforeAll(async () => {
  server = new InMemoryApiServer();
  const { url } = await server.start({ host: '127.0.0.1', port: 0 });
  kubeconfig = kubeconfigFor({ server: url });
  core = kubeConfigFromString(kubeconfig).makeApiClient(CoreV1Api);
});

afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  replicas = [];
});

afterAll(async () => {
  await server.stop();
});

function freshNamespace(): string {
  const name = `certs-${++namespaceCount}`;
  server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

async function replica(
  namespace: string,
  gate = ALWAYS_LEADER as Parameters<typeof startCertReplica>[1],
  extra: Partial<Parameters<typeof startCertReplica>[2]> = {},
): Promise<CertReplica> {
  const started = await startCertReplica(kubeconfig, gate, {
    serviceName: 'edict-svc',
    namespace,
    extraDnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    watchRetryMs: 50,
    ...extra,
  });
  replicas.push(started);
  return started;
}

async function readSecret(namespace: string, suffix: 'ca' | 'pair') {
  return core.readNamespacedSecret({ name: `edict-svc.${namespace}.svc.kyverno-tls-${suffix}`, namespace });
}

function certificatesOf(secret: { data?: Record<string, string> }): X509Certificate[] {
  return parseCertificates(Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString());
}

describe('CertModule with the in-memory API server', () => {
  it('creates the CA and serving pair Secrets on first run (kubernetes.io/tls, tls.crt/tls.key)', async () => {
    const namespace = freshNamespace();
    const leader = await replica(namespace);
    const ca = await readSecret(namespace, 'ca');
    const pair = await readSecret(namespace, 'pair');
    for (const secret of [ca, pair]) {
      expect(secret.type).toBe('kubernetes.io/tls');
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(['tls.crt', 'tls.key']);
      expect(secret.metadata?.labels?.[MANAGED_BY_LABEL]).toBe('edict');
    }
    const [caCert] = certificatesOf(ca);
    const [leaf] = certificatesOf(pair);
    expect(caCert!.ca).toBe(true);
    expect(leaf!.checkIssued(caCert!) && leaf!.verify(caCert!.publicKey)).toBe(true);
    expect(leaf!.subject).toBe(`CN=edict-svc.${namespace}.svc`);
    expect(leaf!.subjectAltName).toBe(
      `DNS:edict-svc, DNS:edict-svc.${namespace}, DNS:edict-svc.${namespace}.svc, ` +
        `DNS:edict-svc.${namespace}.svc.cluster.local, DNS:localhost, IP Address:127.0.0.1`,
    );
    expect(leaf!.publicKey.asymmetricKeyType).toBe('ec');

    const snapshot = await leader.material.ready();
    expect(snapshot.leaf.serialNumber).toBe(leaf!.serialNumber);
    expect(snapshot.caSerialNumbers).toEqual([caCert!.serialNumber]);

    const version = (await readSecret(namespace, 'pair')).metadata?.resourceVersion;
    expect(await leader.renewer.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'unchanged' });
    expect((await readSecret(namespace, 'pair')).metadata?.resourceVersion).toBe(version);
  });

  it('a non-leader never writes, and follows what the leader writes', async () => {
    const namespace = freshNamespace();
    const gate = new TestLeaderGate(false);
    const follower = await replica(namespace, gate);
    expect(await follower.renewer.reconcile()).toMatchObject({ skipped: 'not-leader' });
    await expect(readSecret(namespace, 'ca')).rejects.toMatchObject({ code: 404 });
    await expect(readSecret(namespace, 'pair')).rejects.toMatchObject({ code: 404 });
    expect(follower.material.current()).toBeUndefined();

    const leader = await replica(namespace);
    const written = await leader.material.ready();
    await expect.poll(() => follower.material.current()?.version, { timeout: 5000 }).toBe(written.version);

    // Becoming leader (the gate's observable) triggers a reconcile; nothing is due, nothing written.
    const version = (await readSecret(namespace, 'ca')).metadata?.resourceVersion;
    gate.set(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await readSecret(namespace, 'ca')).metadata?.resourceVersion).toBe(version);
  });

  it('renews the serving certificate when it nears expiry (short validity, real time)', async () => {
    const namespace = freshNamespace();
    const leader = await replica(namespace, ALWAYS_LEADER, {
      leafValidityMs: 4000,
      renewBeforeMs: 2500,
      clockSkewMs: 0,
    });
    const first = await leader.material.ready();
    expect(await leader.renewer.reconcile()).toMatchObject({ leaf: 'unchanged' });
    // The app's scheduler would call reconcile() at nextCheckAt; poll like it.
    await expect
      .poll(async () => (await leader.renewer.reconcile()).leaf, { timeout: 5000, interval: 200 })
      .toBe('issued');
    await expect
      .poll(() => leader.material.current()?.leaf.serialNumber, { timeout: 6000, interval: 200 })
      .not.toBe(first.leaf.serialNumber);
  });

  it('rotates the CA with both CAs in the bundle during the overlap, the leaf moving after propagation', async () => {
    const namespace = freshNamespace();
    const clock = new ManualClock();
    const leader = await replica(namespace, ALWAYS_LEADER, {
      clock,
      caValidityMs: 100 * HOUR,
      leafValidityMs: 99 * HOUR,
      renewBeforeMs: 10 * HOUR,
      caRenewBeforeMs: 10 * HOUR,
      caPropagationMs: HOUR,
    });
    const [oldCa] = certificatesOf(await readSecret(namespace, 'ca'));
    const oldLeaf = certificatesOf(await readSecret(namespace, 'pair'))[0]!;

    clock.advance(91 * HOUR);
    expect(await leader.renewer.reconcile()).toMatchObject({ ca: 'rotated', leaf: 'deferred' });
    const bundle = certificatesOf(await readSecret(namespace, 'ca'));
    expect(bundle.map((c) => c.serialNumber)).toEqual([oldCa!.serialNumber, expect.any(String)]);
    const newCa = bundle[1]!;
    expect(certificatesOf(await readSecret(namespace, 'pair'))[0]!.serialNumber).toBe(oldLeaf.serialNumber);
    await expect
      .poll(() => leader.material.current()?.caSerialNumbers, { timeout: 5000 })
      .toEqual([oldCa!.serialNumber, newCa.serialNumber]);

    clock.advance(HOUR);
    expect(await leader.renewer.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'issued' });
    const newLeaf = certificatesOf(await readSecret(namespace, 'pair'))[0]!;
    expect(newLeaf.checkIssued(newCa)).toBe(true);
    expect(certificatesOf(await readSecret(namespace, 'ca')).length).toBe(2);

    clock.advance(9 * HOUR);
    expect(await leader.renewer.reconcile()).toMatchObject({ ca: 'pruned', leaf: 'unchanged' });
    expect(certificatesOf(await readSecret(namespace, 'ca')).map((c) => c.serialNumber)).toEqual([newCa.serialNumber]);
  });

  it('repairs a deleted Secret from the watch, without a scheduled reconcile', async () => {
    const namespace = freshNamespace();
    const leader = await replica(namespace);
    const first = await leader.material.ready();
    await core.deleteNamespacedSecret({ name: `edict-svc.${namespace}.svc.kyverno-tls-pair`, namespace });
    await expect
      .poll(() => leader.material.current()?.leaf.serialNumber, { timeout: 5000 })
      .not.toBe(first.leaf.serialNumber);
    expect(certificatesOf(await readSecret(namespace, 'pair'))).toHaveLength(1);
  });

  it('two leaders at once end with one CA and one leaf (409 → re-read → re-decide)', async () => {
    const namespace = freshNamespace();
    const quiet = { reconcileOnStart: false, watch: false };
    const [a, b] = await Promise.all([
      replica(namespace, ALWAYS_LEADER, quiet),
      replica(namespace, ALWAYS_LEADER, quiet),
    ]);
    const results = await Promise.all([a.renewer.reconcile(), b.renewer.reconcile(), a.renewer.reconcile()]);
    expect(results.filter((result) => result.ca === 'created')).toHaveLength(1);
    expect(results.reduce((sum, result) => sum + result.conflicts, 0)).toBeGreaterThan(0);
    const bundle = certificatesOf(await readSecret(namespace, 'ca'));
    expect(bundle).toHaveLength(1);
    expect(certificatesOf(await readSecret(namespace, 'pair'))[0]!.checkIssued(bundle[0]!)).toBe(true);
    const [sa, sb] = await Promise.all([a.material.refresh(), b.material.refresh()]);
    expect(sa!.version).toBe(sb!.version);
  });

  it('the module rejects bad options and a missing leader gate at registration', () => {
    const kubeConfig = kubeConfigFromString(kubeconfig);
    expect(() => CertModule.forRoot({ serviceName: 'x', namespace: 'n', kubeConfig } as never)).toThrow(
      /leaderGate: required/,
    );
    expect(() =>
      CertModule.forRoot({ serviceName: 'X!', namespace: 'n', kubeConfig, leaderGate: NEVER_LEADER }),
    ).toThrow(CertOptionsError);
    expect(() => CertModule.forRoot({ serviceName: 'x', namespace: 'n', leaderGate: NEVER_LEADER })).toThrow(
      /kubeConfig or resources/,
    );
  });
});
