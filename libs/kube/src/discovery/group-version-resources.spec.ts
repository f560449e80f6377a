import { describe, expect, it } from 'vitest';
import { ReadBudget } from '../http/read-budget';
import { GroupVersionResources, type GroupVersionReader } from './group-version-resources';

/** A discovery server whose documents can change (a CRD added), counting reads per path. */
function server(documents: Record<string, { name: string; kind: string; namespaced?: boolean }[]>) {
  const reads: string[] = [];
  let down = false;
  const read: GroupVersionReader = async (path) => {
    reads.push(path);
    if (down) throw new Error('discovery is down');
    const resources = documents[path];
    if (!resources) throw new Error(`404 ${path}`);
    return { resources };
  };
  return { read, reads, documents, setDown: (value: boolean) => (down = value) };
}

describe('GroupVersionResources (as KubeResources configures it: no expiry, a miss reads again at once)', () => {
  it('answers from one read, leaves subresources out, and reads again once on a miss', async () => {
    const cluster = server({
      '/api/v1': [
        { name: 'pods', kind: 'Pod', namespaced: true },
        { name: 'pods/exec', kind: 'PodExecOptions' },
      ],
    });
    const discovery = new GroupVersionResources(cluster.read);
    expect(await discovery.find('v1', (r) => r.kind === 'Pod')).toEqual({
      name: 'pods',
      kind: 'Pod',
      namespaced: true,
    });
    expect(await discovery.find('v1', (r) => r.name === 'pods')).toBeDefined();
    expect(cluster.reads).toEqual(['/api/v1']);
    expect(await discovery.find('v1', (r) => r.kind === 'PodExecOptions')).toBeUndefined();
    expect(cluster.reads).toEqual(['/api/v1', '/api/v1']);
    cluster.documents['/apis/example.com/v1'] = [];
    expect(await discovery.find('example.com/v1', (r) => r.kind === 'Widget')).toBeUndefined();
    cluster.documents['/apis/example.com/v1'] = [{ name: 'widgets', kind: 'Widget', namespaced: false }];
    expect(await discovery.find('example.com/v1', (r) => r.kind === 'Widget')).toMatchObject({ name: 'widgets' });
    expect(discovery.knowsKind('Widget')).toBe(true);
    expect(discovery.knowsKind('PodExecOptions')).toBe(false);
  });

  it('throws when a group version cannot be read, and does not remember the failure', async () => {
    const cluster = server({ '/apis/apps/v1': [{ name: 'deployments', kind: 'Deployment', namespaced: true }] });
    const discovery = new GroupVersionResources(cluster.read);
    cluster.setDown(true);
    await expect(discovery.find('apps/v1', () => true)).rejects.toThrow('discovery is down');
    cluster.setDown(false);
    expect(await discovery.find('apps/v1', (r) => r.kind === 'Deployment')).toMatchObject({ name: 'deployments' });
  });
});

describe('GroupVersionResources (as ApiResources configures it: expiry, a bounded miss reread, a budget)', () => {
  it('reads again on a miss only once the answer is old enough, and after expiry', async () => {
    let now = 0;
    const cluster = server({ '/api/v1': [{ name: 'pods', kind: 'Pod', namespaced: true }] });
    const discovery = new GroupVersionResources(cluster.read, { ttlMs: 1_000, missRereadAfterMs: 100, now: () => now });
    await discovery.find('v1', (r) => r.kind === 'Pod');
    expect(await discovery.find('v1', (r) => r.kind === 'Secret')).toBeUndefined();
    expect(cluster.reads).toHaveLength(1);
    now = 100;
    await discovery.find('v1', (r) => r.kind === 'Secret');
    expect(cluster.reads).toHaveLength(2);
    now = 1_200;
    await discovery.find('v1', (r) => r.kind === 'Pod');
    expect(cluster.reads).toHaveLength(3);
  });

  it('refuses reads of group versions not cached beyond the budget', async () => {
    const cluster = server({});
    const budget = new ReadBudget(1, 2, () => 0);
    const discovery = new GroupVersionResources(cluster.read, { budget, now: () => 0 });
    await expect(discovery.find('made.up/v1', () => true)).rejects.toThrow('404');
    await expect(discovery.find('made.up/v2', () => true)).rejects.toThrow('404');
    await expect(discovery.find('made.up/v3', () => true)).rejects.toThrow('over their budget (1 per second)');
    expect(cluster.reads).toHaveLength(2);
  });
});
