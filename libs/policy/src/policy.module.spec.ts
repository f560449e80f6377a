import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Test } from '@nestjs/testing';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { KubeModule } from '@edict/kube';
import { eventually } from '@edict/kube/testing';
import { PolicyCache } from './policy-cache';
import { PolicyModule } from './policy.module';
import { POLICY_FEEDS, POLICY_OPTIONS } from './policy.constants';
import { fakePolicyFeeds, installPolicyCrds, labelRule, policyOf } from './testing';

describe('PolicyModule', () => {
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50 });
  let url: string;
  beforeAll(async () => {
    ({ url } = await server.start({ host: '127.0.0.1', port: 0 }));
    installPolicyCrds(server);
    server.create(policyOf('from-server', [labelRule('r', ['Pod'])]) as unknown as JsonObject);
  });
  afterAll(async () => server.stop());

  it('wires KubeModule + PolicyModule: the cache syncs from the API server on init and stops on close', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KubeModule.forRoot({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) }),
        PolicyModule.forRoot({ watchTimeoutSeconds: 5, retryInitialMs: 20, exceptionNamespaces: ['kyverno'] }),
      ],
    }).compile();
    await moduleRef.init();
    const cache = moduleRef.get(PolicyCache);
    await cache.waitForSync(5_000);
    expect(cache.policies().map((p) => p.key)).toEqual(['from-server']);
    expect(moduleRef.get(POLICY_OPTIONS)).toMatchObject({ exceptionNamespaces: ['kyverno'] });

    server.create(policyOf('later', [labelRule('r', ['Pod'])]) as unknown as JsonObject);
    await eventually(() => cache.policies().length === 2, 'the second policy');
    await moduleRef.close();
  });

  it('forRootAsync takes options from a factory; feeds can be replaced', async () => {
    const feeds = fakePolicyFeeds();
    const moduleRef = await Test.createTestingModule({
      imports: [
        KubeModule.forRoot({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) }),
        PolicyModule.forRootAsync({ useFactory: () => ({ exceptionNamespaces: ['ns-*'] }) }),
      ],
    })
      .overrideProvider(POLICY_FEEDS)
      .useValue(feeds)
      .compile();
    await moduleRef.init();
    expect(feeds.clusterPolicies.started).toBe(true);
    feeds.markSynced();
    await moduleRef.get(PolicyCache).waitForSync();
    expect(moduleRef.get(POLICY_OPTIONS)).toMatchObject({ exceptionNamespaces: ['ns-*'] });
    await moduleRef.close();
    expect(feeds.clusterPolicies.stopped).toBe(true);
  });

  it('forRootAsync rejects bad options when the module is built', async () => {
    await expect(
      Test.createTestingModule({
        imports: [
          KubeModule.forRoot({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) }),
          PolicyModule.forRootAsync({ useFactory: () => ({ exceptionNamespaces: 'kyverno' as never }) }),
        ],
      }).compile(),
    ).rejects.toThrow(/exceptionNamespaces/);
  });
});
