import { describe, expect, it } from 'vitest';
import { DiscoveryResolver } from './discovery-resolver';

/** Discovery of one API group whose resources can change (a CRD being added), counting reads. */
class FakeDiscovery {
  reads = 0;
  resources: Array<{ name: string; kind: string; namespaced: boolean }> = [];

  json<T>({ path }: { path: string }): Promise<T> {
    if (path === '/api') this.reads++;
    const bodies: Record<string, unknown> = {
      '/api': { versions: [] },
      '/apis': { groups: [{ name: 'acid.zalan.do', versions: [{ version: 'v1' }] }] },
      '/apis/acid.zalan.do/v1': { resources: this.resources },
    };
    return Promise.resolve(bodies[path] as T);
  }
}

const postgresql = { group: 'acid.zalan.do', version: 'v1', kind: 'postgresql', subresource: '' };

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
});
