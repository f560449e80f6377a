import { X509Certificate } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { beforeEach, describe, expect, it } from 'vitest';
import { CA_ADDED_AT_ANNOTATION, MANAGED_BY_LABEL } from '../cert.constants';
import { resolveCertOptions, type ResolvedCertOptions } from '../cert.options';
import { parseCertificates } from '../crypto/pem';
import { ManualClock, MemorySecretStore, TestLeaderGate } from '../testing';
import { CertRenewer } from './cert-renewer';

const HOUR = 3_600_000;
const CA = 'svc.ns.svc.kyverno-tls-ca';
const PAIR = 'svc.ns.svc.kyverno-tls-pair';

let store: MemorySecretStore;
let clock: ManualClock;
let gate: TestLeaderGate;
let options: ResolvedCertOptions;

function renewer(overrides: Partial<Parameters<typeof resolveCertOptions>[0]> = {}): CertRenewer {
  options = resolveCertOptions({
    serviceName: 'svc',
    namespace: 'ns',
    caValidityMs: 100 * HOUR,
    leafValidityMs: 40 * HOUR,
    renewBeforeMs: 10 * HOUR,
    caRenewBeforeMs: 10 * HOUR,
    caPropagationMs: HOUR,
    clockSkewMs: 0,
    ...overrides,
  });
  return new CertRenewer(options, store, gate, clock);
}

async function bundle(): Promise<X509Certificate[]> {
  return parseCertificates((await store.read(CA))?.data['tls.crt']);
}

async function leaf(): Promise<X509Certificate> {
  return parseCertificates((await store.read(PAIR))?.data['tls.crt'])[0]!;
}

Logger.overrideLogger(false);

beforeEach(() => {
  store = new MemorySecretStore();
  clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  gate = new TestLeaderGate(true);
});

describe('CertRenewer', () => {
  it('creates the CA and the serving pair on first run, then changes nothing', async () => {
    const subject = renewer();
    const first = await subject.reconcile();
    expect(first).toMatchObject({ ca: 'created', leaf: 'issued', conflicts: 0 });
    const ca = await store.read(CA);
    expect(ca).toMatchObject({ type: 'kubernetes.io/tls', labels: { [MANAGED_BY_LABEL]: 'edict' } });
    expect(ca!.annotations[CA_ADDED_AT_ANNOTATION]).toBe('2030-01-01T00:00:00.000Z');
    expect(Object.keys(ca!.data).sort()).toEqual(['tls.crt', 'tls.key']);
    expect((await bundle()).length).toBe(1);
    expect((await leaf()).checkIssued((await bundle())[0]!)).toBe(true);
    expect(first.nextCheckAt).toEqual(new Date(clock.now().getTime() + HOUR)); // propagation mark

    const writes = store.writes.length;
    expect(await subject.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'unchanged' });
    clock.advance(2 * HOUR);
    expect(await subject.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'unchanged' });
    expect(store.writes.length).toBe(writes);
  });

  it('a non-leader reads nothing and writes nothing', async () => {
    gate.set(false);
    expect(await renewer().reconcile()).toMatchObject({ skipped: 'not-leader' });
    expect(store.writes).toEqual([]);
  });

  it('renews the leaf when it nears expiry, signed by the same CA', async () => {
    const subject = renewer();
    await subject.reconcile();
    const before = await leaf();
    clock.advance(29 * HOUR);
    expect(await subject.reconcile()).toMatchObject({ leaf: 'unchanged' });
    clock.advance(2 * HOUR); // 9 h left < 10 h
    expect(await subject.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'issued' });
    const after = await leaf();
    expect(after.serialNumber).not.toBe(before.serialNumber);
    expect(after.issuer).toBe(before.issuer);
  });

  it('rotates the CA before expiry, keeps the old one, and moves the leaf only after propagation', async () => {
    const subject = renewer({ leafValidityMs: 99 * HOUR });
    await subject.reconcile();
    const [oldCa] = await bundle();
    const oldLeaf = await leaf();
    clock.advance(91 * HOUR); // CA has 9 h left, the leaf 8 h: both due
    const rotated = await subject.reconcile();
    expect(rotated).toMatchObject({ ca: 'rotated', leaf: 'deferred' });
    expect(rotated.nextCheckAt).toEqual(new Date(clock.now().getTime() + HOUR));
    const both = await bundle();
    expect(both.map((c) => c.serialNumber)).toEqual([oldCa!.serialNumber, expect.any(String)]);
    expect((await leaf()).serialNumber).toBe(oldLeaf.serialNumber);

    clock.advance(HOUR);
    expect(await subject.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'issued' });
    expect((await leaf()).checkIssued(both[1]!)).toBe(true);
    expect((await bundle()).length).toBe(2);

    clock.advance(9 * HOUR); // the old CA is gone
    expect(await subject.reconcile()).toMatchObject({ ca: 'pruned', leaf: 'unchanged' });
    expect((await bundle()).map((c) => c.serialNumber)).toEqual([both[1]!.serialNumber]);
  });

  it('issues at once when the served certificate is unusable, even right after a CA rotation', async () => {
    const subject = renewer();
    await subject.reconcile();
    await subject.reconcile({ force: 'ca' });
    store.delete(PAIR);
    expect(await subject.reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'issued' });
    expect((await leaf()).checkIssued((await bundle())[1]!)).toBe(true);
  });

  it('replaces a leaf with the wrong key, names or key type', async () => {
    const subject = renewer();
    await subject.reconcile();
    const pair = (await store.read(PAIR))!;
    const other = (await store.read(CA))!.data['tls.key']!;
    store.put({ ...pair, data: { ...pair.data, 'tls.key': other } });
    expect(await subject.reconcile()).toMatchObject({
      leaf: 'issued',
      reasons: ['ca: the CA is valid', 'leaf: tls.key does not match tls.crt'],
    });

    const named = renewer({ extraDnsNames: ['localhost'] });
    expect(await named.reconcile()).toMatchObject({ leaf: 'issued' });
    expect((await leaf()).subjectAltName).toContain('DNS:localhost');

    const rsa = renewer({ extraDnsNames: ['localhost'], keyAlgorithm: 'Ed25519' });
    expect(await rsa.reconcile()).toMatchObject({
      leaf: 'issued',
      reasons: ['ca: the CA is valid', 'leaf: the key is not Ed25519'],
    });
  });

  it('leaves unmanaged Secrets alone and says why', async () => {
    const subject = renewer();
    await subject.reconcile();
    const ca = (await store.read(CA))!;
    store.put({ ...ca, labels: {}, data: { ...ca.data, 'tls.key': '' } });
    const writes = store.writes.length;
    expect(await subject.reconcile()).toMatchObject({ ca: 'blocked' });
    expect(store.writes.length).toBe(writes);
  });

  it('writes the configured managed-by label and treats only Secrets carrying it as its own', async () => {
    const subject = renewer({ managedByLabel: 'cert.kyverno.io/managed-by', managedBy: 'kyverno' });
    expect(await subject.reconcile()).toMatchObject({ ca: 'created', leaf: 'issued' });
    const ca = (await store.read(CA))!;
    expect(ca.labels).toEqual({ 'cert.kyverno.io/managed-by': 'kyverno' });
    expect((await store.read(PAIR))!.labels).toEqual({ 'cert.kyverno.io/managed-by': 'kyverno' });

    // Edict's default label is someone else's here: a broken CA carrying only it is left alone.
    store.put({ ...ca, labels: { [MANAGED_BY_LABEL]: 'edict' }, data: { ...ca.data, 'tls.key': '' } });
    const writes = store.writes.length;
    expect(await subject.reconcile()).toMatchObject({ ca: 'blocked' });
    expect(store.writes.length).toBe(writes);
  });

  it('refuses a managed-by label that is not a label key', () => {
    expect(() => renewer({ managedByLabel: 'not a key' })).toThrow(/managedByLabel/);
    expect(() => renewer({ managedBy: 'Not_A_Label' })).toThrow(/managedBy: managedBy must be a DNS label/);
  });
  it('re-reads and re-decides after losing a race (409), ending with one CA', async () => {
    const subject = renewer();
    const rival = renewer();
    let raced = false;
    store.beforeWrite = async () => {
      if (raced) return;
      raced = true;
      await rival.reconcile(); // another leader creates both Secrets first
    };
    const result = await subject.reconcile();
    expect(result).toMatchObject({ ca: 'unchanged', leaf: 'unchanged', conflicts: 1 });
    expect((await bundle()).length).toBe(1);
    expect(store.writes).toEqual([`${CA}@1`, `${PAIR}@2`]);
  });

  it('two renewers running together converge on one CA and one leaf', async () => {
    const results = await Promise.all([renewer().reconcile(), renewer().reconcile(), renewer().reconcile()]);
    expect(results.filter((r) => r.ca === 'created')).toHaveLength(1);
    expect((await bundle()).length).toBe(1);
    expect((await leaf()).checkIssued((await bundle())[0]!)).toBe(true);
    const writes = store.writes.length;
    await Promise.all([renewer().reconcile(), renewer().reconcile()]);
    expect(store.writes.length).toBe(writes);
  });

  it('does not write when leadership ends mid-reconcile', async () => {
    const subject = renewer();
    store.beforeWrite = () => gate.set(false);
    // The store's hook flips the gate before the first write lands; the renewer re-checks after.
    const result = await subject.reconcile();
    expect(result.skipped).toBe('not-leader');
    expect(store.writes.length).toBeLessThanOrEqual(1);
  });

  it('serialises concurrent calls on one renewer', async () => {
    const subject = renewer();
    const [a, b] = await Promise.all([subject.reconcile(), subject.reconcile()]);
    expect([a.ca, b.ca]).toEqual(['created', 'unchanged']);
    expect(store.writes.length).toBe(2);
  });
});
