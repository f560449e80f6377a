import { describe, expect, it } from 'vitest';
import { type APICall, type LoaderScope } from '@edict/engine';
import { deadlineAt, type JsonValue } from '@edict/foundation';
import { ClusterContextLoaders, type ApiCallers } from './cluster-context-loaders';
import { ContextLoadError, FairContextLoads, LOAD_SHARE_OF_REMAINING } from './fair-context-loads';
import type { ImageDataSource } from './image-data-source';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

/** A scope whose review has `ms` left. */
const within = (ms: number, policyNamespace?: string): LoaderScope => ({
  ...(policyNamespace ? { policyNamespace } : {}),
  deadline: deadlineAt(performance.now() + ms),
});

describe('FairContextLoads', () => {
  it("keeps one namespace's slow loads to its share, so another namespace's load runs at once", async () => {
    const loads = new FairContextLoads({ maxLoads: 4, maxLoadsPerNamespace: 2 });
    const slow = gate();
    const tenant = Array.from({ length: 5 }, () => loads.run(within(5_000, 'team-a'), 'apiCall', () => slow.opened));
    expect(loads.stats('team-a')).toEqual({ inFlight: 2, queued: 3 });
    expect(await loads.run(within(5_000, 'team-b'), 'apiCall', async () => 'b')).toBe('b');
    // ClusterPolicies are one tenant of their own, with their own share.
    expect(await loads.run(within(5_000), 'apiCall', async () => 'cluster')).toBe('cluster');
    slow.open();
    await Promise.all(tenant);
    expect(loads.stats()).toEqual({ inFlight: 0, queued: 0 });
  });

  it("gives each load at most half of its review's remaining time", async () => {
    const loads = new FairContextLoads({ maxLoads: 1, maxLoadsPerNamespace: 1 });
    const share = await loads.run(within(2_000, 'team-a'), 'apiCall', async (shareMs) => shareMs);
    expect(LOAD_SHARE_OF_REMAINING).toBe(0.5);
    expect(share).toBeGreaterThan(900);
    expect(share).toBeLessThanOrEqual(1_000);
    // Without a deadline (background, cleanup) the callers' own limits apply.
    expect(await loads.run({ policyNamespace: 'team-a' }, 'apiCall', async (shareMs) => shareMs)).toBeUndefined();
  });

  it('fails a load that waited its whole share for a slot, naming the namespace and the setting', async () => {
    const loads = new FairContextLoads({ maxLoads: 4, maxLoadsPerNamespace: 1 });
    const slow = gate();
    const holding = loads.run(within(5_000, 'team-a'), 'apiCall /api/v1/pods', () => slow.opened);
    await expect(loads.run(within(100, 'team-a'), 'apiCall /api/v1/pods', async () => 1)).rejects.toThrow(
      /^apiCall \/api\/v1\/pods: no context load slot of policies in namespace team-a freed up within (49|50) ms \(EDICT_MAX_CONTEXT_LOADS_PER_NAMESPACE\)$/,
    );
    slow.open();
    await holding;
  });

  it('does not start a load once the review is past its deadline', async () => {
    const loads = new FairContextLoads({ maxLoads: 1, maxLoadsPerNamespace: 1 });
    let started = false;
    const late = loads.run(within(-1, 'team-a'), 'apiCall x', async () => (started = true));
    await expect(late).rejects.toThrow(ContextLoadError);
    await expect(late).rejects.toThrow("apiCall x: the review's deadline has passed");
    expect(started).toBe(false);
  });
});

describe('ClusterContextLoaders with fair loads', () => {
  it("hands apiCall callers the load's share of the review's time", async () => {
    const shares: Array<number | undefined> = [];
    const callers: ApiCallers = {
      kube: async (_call: APICall, shareMs?: number) => {
        shares.push(shareMs);
        return { items: [] } as JsonValue;
      },
      service: async () => null,
    };
    const images: ImageDataSource = { imageData: () => new Promise(() => undefined) };
    const loaders = new ClusterContextLoaders(
      { get: () => undefined },
      callers,
      { read: () => null },
      images,
      new FairContextLoads({ maxLoads: 2, maxLoadsPerNamespace: 1 }),
    );
    await loaders.apiCall({ urlPath: '/api/v1/namespaces/shop/pods' }, within(4_000, 'shop'));
    expect(shares[0]).toBeGreaterThan(1_900);
    expect(shares[0]).toBeLessThanOrEqual(2_000);
    // A registry that never answers ends with the load's share.
    await expect(loaders.imageRegistry('nginx:1.27', undefined, within(200, 'shop'))).rejects.toThrow(
      /imageRegistry nginx:1.27: no answer within \d+ ms \(its share of the review's remaining time\)/,
    );
  });
});
