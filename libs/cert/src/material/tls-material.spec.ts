import { Logger } from '@nestjs/common';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveCertOptions } from '../cert.options';
import { CertRenewer } from '../renewal/cert-renewer';
import { ALWAYS_LEADER } from '@edict/leader';
import { SYSTEM_CLOCK } from '../cert-clock';
import { MemorySecretStore } from '../testing';
import { TlsMaterial, type TlsSnapshot } from './tls-material';

Logger.overrideLogger(false);

const options = resolveCertOptions({ serviceName: 'svc', namespace: 'ns' });
let store: MemorySecretStore;
let renewer: CertRenewer;
let material: TlsMaterial;

beforeEach(() => {
  store = new MemorySecretStore();
  renewer = new CertRenewer(options, store, ALWAYS_LEADER, SYSTEM_CLOCK);
  material = new TlsMaterial(options, store);
});

describe('TlsMaterial', () => {
  it('has nothing before the Secrets exist, and says why', async () => {
    expect(await material.refresh()).toBeUndefined();
    expect(material.current()).toBeUndefined();
    expect(material.lastError()).toBe('secret svc.ns.svc.kyverno-tls-pair has no certificate and key yet');
    await expect(material.ready(50)).rejects.toThrow();
  });

  it('publishes key, chain and bundle, and notifies once per distinct change', async () => {
    await renewer.reconcile();
    const seen: TlsSnapshot[] = [];
    material.onChange((snapshot) => seen.push(snapshot));
    const first = await material.ready();
    expect(first.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(first.certChainPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(1);
    expect(first.caBundlePem.match(/BEGIN CERTIFICATE/g)).toHaveLength(1);
    await material.refresh();
    expect(seen).toHaveLength(1);

    await renewer.reconcile({ force: 'ca' });
    const withBoth = (await material.refresh())!;
    expect(withBoth.caSerialNumbers).toHaveLength(2);
    expect(withBoth.leaf.serialNumber).toBe(first.leaf.serialNumber);
    expect(seen.map((snapshot) => snapshot.version)).toEqual([first.version, withBoth.version]);
  });

  it('keeps the previous material when the pair is broken', async () => {
    await renewer.reconcile();
    const good = await material.ready();
    const pair = (await store.read(options.pairSecretName))!;
    const ca = (await store.read(options.caSecretName))!;
    store.put({ ...pair, data: { ...pair.data, 'tls.key': ca.data['tls.key']! } });
    expect(await material.refresh()).toBe(good);
    expect(material.lastError()).toBe('tls.key does not match tls.crt');
    store.put({ ...pair, data: { ...pair.data, 'tls.key': 'garbage' } });
    expect(await material.refresh()).toBe(good);
    expect(material.lastError()).toMatch(/^tls.key is unreadable/);
  });
});
