import { describe, expect, it } from 'vitest';
import { ApiResources, DISCOVERY_READ_BURST } from './api-resources';
import type { GroupVersionReader } from './group-version-resources';

const CORE = {
  resources: [
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'pods', kind: 'Pod', namespaced: true },
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

function discovery(documents: Record<string, { resources: { name: string; kind: string; namespaced?: boolean }[] }>) {
  const reads: string[] = [];
  const read: GroupVersionReader = async (path) => {
    reads.push(path);
    const document = documents[path];
    if (!document) throw new Error(`404 ${path}`);
    return document;
  };
  return { read, reads };
}

describe('ApiResources', () => {
  it("answers the parent resource's kind from the group version's discovery", async () => {
    const { read } = discovery({ '/api/v1': CORE, '/apis/apps/v1': APPS });
    const kinds = new ApiResources(read);
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

  it("answers a kind's resource name and scope, never a subresource's", async () => {
    const { read, reads } = discovery({ '/api/v1': CORE });
    const resources = new ApiResources(read);
    expect(await resources.resourceOf({ group: '', version: 'v1', kind: 'Pod' })).toEqual({
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
    });
    expect(await resources.resourceOf({ group: '', version: 'v1', kind: 'Namespace' })).toMatchObject({
      resource: 'namespaces',
      namespaced: false,
    });
    expect(await resources.resourceOf({ group: '', version: 'v1', kind: 'PodExecOptions' })).toBeUndefined();
    expect(reads).toHaveLength(1); // a miss just after a read does not read again
  });

  it('reads each group version once while fresh, and again after the TTL', async () => {
    let now = 0;
    const { read, reads } = discovery({ '/api/v1': CORE });
    const kinds = new ApiResources(read, 1_000, () => now);
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
    const kinds = new ApiResources(read, 1_000, () => now);
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
    const kinds = new ApiResources(read);
    expect(await kinds.kindOf({ group: 'gone.io', version: 'v1', resource: 'things' })).toBeUndefined();
    expect(await kinds.kindOf({ group: 'gone.io', version: 'v1', resource: 'things' })).toBeUndefined();
    expect(reads).toEqual(['/apis/gone.io/v1', '/apis/gone.io/v1']);
  });

  it('knows the kinds of the discovery answers it has read, without reading', async () => {
    const { read, reads } = discovery({ '/api/v1': CORE });
    const kinds = new ApiResources(read);
    expect(kinds.knowsKind('Pod')).toBe(false);
    await kinds.kindOf({ group: '', version: 'v1', resource: 'pods' });
    expect(['Pod', 'Namespace', 'PodExecOptions', 'Kind1'].map((kind) => kinds.knowsKind(kind))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(reads).toEqual(['/api/v1']);
  });

  it("gives a subresource request's parent kind, and throws naming the resource when discovery cannot tell it", async () => {
    const { read } = discovery({ '/api/v1': CORE });
    const kinds = new ApiResources(read);
    expect(await kinds.parentKindOf({ group: '', version: 'v1', resource: 'pods' }, 'exec')).toEqual({
      group: '',
      version: 'v1',
      kind: 'Pod',
    });
    await expect(
      kinds.parentKindOf({ group: 'apps', version: 'v1', resource: 'deployments' }, 'scale'),
    ).rejects.toThrow(
      "API discovery could not tell the kind of the deployments/scale request's resource deployments (apps/v1): 404 /apis/apps/v1; the review is not evaluated against the subresource's own kind",
    );
    await expect(kinds.parentKindOf({ group: '', version: 'v1', resource: 'widgets' }, 'status')).rejects.toThrow(
      "API discovery serves no the widgets/status request's resource widgets (v1)",
    );
  });

  it('reads group versions not cached within a budget: made-up ones cost a bounded number of reads', async () => {
    const { read, reads } = discovery({});
    const kinds = new ApiResources(read, 60_000, () => 0);
    for (let index = 0; index < 100; index += 1)
      expect(await kinds.kindOf({ group: `made-up-${index}.io`, version: 'v1', resource: 'things' })).toBeUndefined();
    expect(reads).toHaveLength(DISCOVERY_READ_BURST);
    await expect(kinds.parentKindOf({ group: 'more.io', version: 'v1', resource: 'things' }, 'status')).rejects.toThrow(
      /discovery reads are over their budget \(10 per second\)/,
    );
  });
});
