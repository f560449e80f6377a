import { describe, expect, it } from 'vitest';
import { TopLevelKinds, type DiscoveryReader } from './top-level-kinds';

const CORE = {
  resources: [
    { name: 'pods', kind: 'Pod' },
    { name: 'pods/exec', kind: 'PodExecOptions' },
    { name: 'pods/ephemeralcontainers', kind: 'Pod' },
  ],
};
const APPS = {
  resources: [
    { name: 'deployments', kind: 'Deployment' },
    { name: 'deployments/scale', kind: 'Scale' },
  ],
};

function discovery(documents: Record<string, { resources: { name: string; kind: string }[] }>) {
  const reads: string[] = [];
  const read: DiscoveryReader = async (path) => {
    reads.push(path);
    const document = documents[path];
    if (!document) throw new Error(`404 ${path}`);
    return document;
  };
  return { read, reads };
}

describe('TopLevelKinds', () => {
  it("answers the parent resource's kind from the group version's discovery", async () => {
    const { read } = discovery({ '/api/v1': CORE, '/apis/apps/v1': APPS });
    const kinds = new TopLevelKinds(read);
    expect(await kinds.kindOf({ group: '', version: 'v1', resource: 'pods' })).toEqual({
      group: '',
      version: 'v1',
      kind: 'Pod',
    });
    expect(await kinds.kindOf({ group: 'apps', version: 'v1', resource: 'deployments' })).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
  });

  it('reads each group version once while fresh, and again after the TTL', async () => {
    let now = 0;
    const { read, reads } = discovery({ '/api/v1': CORE });
    const kinds = new TopLevelKinds(read, 1_000, () => now);
    await Promise.all([
      kinds.kindOf({ group: '', version: 'v1', resource: 'pods' }),
      kinds.kindOf({ group: '', version: 'v1', resource: 'pods' }),
    ]);
    expect(reads).toEqual(['/api/v1']);
    now = 1_000;
    await kinds.kindOf({ group: '', version: 'v1', resource: 'pods' });
    expect(reads).toEqual(['/api/v1', '/api/v1']);
  });

  it('re-reads on a miss (a CRD may be new), at most once per tenth of the TTL', async () => {
    let now = 0;
    const documents = { '/apis/example.com/v1': { resources: [] as { name: string; kind: string }[] } };
    const { read, reads } = discovery(documents);
    const kinds = new TopLevelKinds(read, 1_000, () => now);
    const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
    expect(await kinds.kindOf(widgets)).toBeUndefined();
    expect(reads).toHaveLength(1);
    documents['/apis/example.com/v1'].resources.push({ name: 'widgets', kind: 'Widget' });
    now = 100;
    expect(await kinds.kindOf(widgets)).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(reads).toHaveLength(2);
  });

  it('does not remember a failed read, and answers undefined for it', async () => {
    const { read, reads } = discovery({});
    const kinds = new TopLevelKinds(read);
    expect(await kinds.kindOf({ group: 'gone.io', version: 'v1', resource: 'things' })).toBeUndefined();
    expect(await kinds.kindOf({ group: 'gone.io', version: 'v1', resource: 'things' })).toBeUndefined();
    expect(reads).toEqual(['/apis/gone.io/v1', '/apis/gone.io/v1']);
  });
});
