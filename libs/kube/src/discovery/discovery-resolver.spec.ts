import { describe, expect, it } from 'vitest';
import { DiscoveryResolver } from './discovery-resolver';

/** Discovery of API groups whose resources can change (a CRD being added), counting reads. */
class FakeDiscovery {
  reads = 0;
  /** Fails every read from now on. */
  down = false;
  readonly paths: string[] = [];
  resources: Array<{ name: string; kind: string; namespaced: boolean }> = [];
  apps = [{ name: 'deployments', kind: 'Deployment', namespaced: true }];

  json<T>({ path }: { path: string }): Promise<T> {
    if (this.down) return Promise.reject(new Error('discovery is down'));
    if (path === '/api') this.reads++;
    this.paths.push(path);
    const bodies: Record<string, unknown> = {
      '/api': { versions: [] },
      '/apis': {
        groups: [
          { name: 'acid.zalan.do', versions: [{ version: 'v1' }] },
          { name: 'apps', versions: [{ version: 'v1' }] },
        ],
      },
      '/apis/acid.zalan.do/v1': { resources: this.resources },
      '/apis/apps/v1': { resources: this.apps },
    };
    return Promise.resolve(bodies[path] as T);
  }
}

const postgresql = { group: 'acid.zalan.do', version: 'v1', kind: 'postgresql', subresource: '' };
const deployment = { group: 'apps', version: 'v1', kind: 'Deployment', subresource: '' };
const statefulSet = { ...deployment, kind: 'StatefulSet' };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DiscoveryResolver', () => {
  it('reads discovery again when a named kind is missing from the cached answer', async () => {
    const discovery = new FakeDiscovery();
    const resolver = new DiscoveryResolver(discovery, 60_000);
    expect((await resolver.resolver(['acid.zalan.do/v1/postgresql']))(postgresql)).toEqual([]);
    discovery.resources = [{ name: 'postgresqls', kind: 'postgresql', namespaced: true }];
    const resolve = await resolver.resolver(['acid.zalan.do/v1/postgresql']);
    expect(resolve(postgresql)).toEqual([
      {
        group: 'acid.zalan.do',
        version: 'v1',
        resource: 'postgresqls',
        kind: 'postgresql',
        namespaced: true,
        subresource: '',
      },
    ]);
    expect(discovery.reads).toBe(2);
  });

  it('keeps the cached answer when every kind is served or wildcarded', async () => {
    const discovery = new FakeDiscovery();
    discovery.resources = [{ name: 'postgresqls', kind: 'postgresql', namespaced: true }];
    const resolver = new DiscoveryResolver(discovery, 60_000);
    await resolver.resolver(['acid.zalan.do/v1/postgresql']);
    await resolver.resolver(['acid.zalan.do/v1/postgresql', '*', 'acid.zalan.do/*/post*']);
    expect(discovery.reads).toBe(1);
  });

  it("after a CRD change reads only the group list and the CRD's group again, keeping the rest", async () => {
    const discovery = new FakeDiscovery();
    const resolver = new DiscoveryResolver(discovery, 60_000);
    await resolver.resolver(['Deployment']);
    discovery.paths.length = 0;
    discovery.resources = [{ name: 'postgresqls', kind: 'postgresql', namespaced: true }];
    discovery.apps = [];
    resolver.invalidate('acid.zalan.do');
    const resolve = await resolver.resolver(['Deployment']);
    expect(discovery.paths.sort()).toEqual(['/api', '/apis', '/apis/acid.zalan.do/v1']);
    expect(resolve(postgresql)).toHaveLength(1);
    expect(resolve({ group: '*', version: '*', kind: 'Deployment', subresource: '' })).toHaveLength(1);
    resolver.invalidate();
    expect(
      (await resolver.resolver(['postgresql']))({ group: '*', version: '*', kind: 'Deployment', subresource: '' }),
    ).toEqual([]);
  });

  it('past its cache time answers from the previous read at once, and reads discovery again for the next pass', async () => {
    const discovery = new FakeDiscovery();
    let now = 0;
    const resolver = new DiscoveryResolver(discovery, 30_000, () => now);
    await resolver.resolver(['apps/v1/Deployment']);
    discovery.apps = [...discovery.apps, { name: 'statefulsets', kind: 'StatefulSet', namespaced: true }];
    now = 31_000;
    const expired = await resolver.resolver(['apps/v1/Deployment']);
    expect(expired(statefulSet)).toEqual([]);
    expect(discovery.reads).toBe(2);
    await settle();
    const refreshed = await resolver.resolver(['apps/v1/Deployment']);
    expect(refreshed(statefulSet)).toMatchObject([{ resource: 'statefulsets' }]);
    expect(discovery.reads).toBe(2);
  });

  it('keeps answering from the previous read while reading discovery again fails', async () => {
    const discovery = new FakeDiscovery();
    let now = 0;
    const resolver = new DiscoveryResolver(discovery, 30_000, () => now);
    await resolver.resolver(['apps/v1/Deployment']);
    discovery.down = true;
    now = 31_000;
    for (let pass = 0; pass < 2; pass++) {
      const resolve = await resolver.resolver(['apps/v1/Deployment']);
      expect(resolve(deployment)).toMatchObject([{ resource: 'deployments' }]);
      await settle();
    }
  });
});
