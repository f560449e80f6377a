// KubeLeaseLock against the in-memory API server through libs/kube's KubeResources.
import { InMemoryApiServer } from '@edict/apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeLeaseLock } from './kube-lease-lock';
import { isConflict, KubeHttpClient, KubeResources } from '@edict/kube';
import { kubeConfigForUrl } from '@edict/kube/testing';
import type { ObservedLease } from './lease-lock';

let server: InMemoryApiServer;
let resources: KubeResources;

beforeAll(async () => {
  server = new InMemoryApiServer();
  const { url } = await server.start({ host: '127.0.0.1', port: 0 });
  resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
});
afterAll(async () => {
  await server.stop();
});

const record = (holderIdentity: string, at: number) => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: at,
  renewTime: at,
  leaseTransitions: 0,
});

describe('KubeLeaseLock', () => {
  it('reads a missing lease as undefined, creates it with MicroTimes, and conflicts on stale updates', async () => {
    const a = new KubeLeaseLock({ resources, name: 'lock-a', namespace: 'default' });
    const b = new KubeLeaseLock({ resources, name: 'lock-a', namespace: 'default' });
    expect(a.description).toBe('default/lock-a');
    expect(await a.get()).toBeUndefined();
    await expect(a.update(record('a', 1))).rejects.toThrow('not initialized');
    await a.create(record('a', Date.UTC(2025, 0, 1)));
    const stored = server.get('coordination.k8s.io/v1', 'Lease', 'lock-a', 'default')!;
    expect((stored.spec as Record<string, unknown>).renewTime).toBe('2025-01-01T00:00:00.000000Z');

    const seen = await b.get();
    expect(seen?.record).toEqual(record('a', Date.UTC(2025, 0, 1)));
    await a.update(record('a', Date.UTC(2025, 0, 1, 0, 0, 2)));
    const stale = await b.update(record('b', Date.UTC(2025, 0, 1, 0, 0, 3))).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    await b.get();
    await b.update(record('b', Date.UTC(2025, 0, 1, 0, 0, 3)));
    expect((await a.get())?.record.holderIdentity).toBe('b');
  });

  it('watches the lease when asked to', async () => {
    const lock = new KubeLeaseLock({
      resources,
      name: 'lock-w',
      namespace: 'default',
      watch: true,
      rewatchDelayMs: 50,
    });
    const seen: Array<ObservedLease | undefined> = [];
    const stop = lock.watch!((lease) => seen.push(lease));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await lock.create(record('w', 1_000));
    await lock.update({ ...record('', 2_000), leaseDurationSeconds: 1 });
    server.delete('coordination.k8s.io/v1', 'Lease', 'lock-w', 'default');
    const start = Date.now();
    while (seen.length < 3 && Date.now() - start < 3_000) await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(seen.map((lease) => lease?.record.holderIdentity)).toEqual(['w', '', undefined]);
    expect(new KubeLeaseLock({ resources, name: 'x', namespace: 'default' }).watch).toBeUndefined();
  });
});
