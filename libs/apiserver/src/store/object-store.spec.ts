// The store's owner index: dependentsOf must always equal a scan of every stored object.
import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { ObjectStore, type Dependent } from './object-store';

const PODS = '/pods';
const REPLICA_SETS = 'apps/replicasets';

function object(name: string, owners: readonly (string | undefined)[], namespace = 'default'): JsonObject {
  const ownerReferences = owners.map((uid) => ({
    apiVersion: 'v1',
    kind: 'Owner',
    name: 'o',
    ...(uid ? { uid } : {}),
  }));
  return { metadata: { name, namespace, resourceVersion: '1', ...(owners.length ? { ownerReferences } : {}) } };
}

/** What dependentsOf must answer, by reading every object. */
function scanned(store: ObjectStore, ownerUid: string): Dependent[] {
  return store.groupResources().flatMap((groupResource) =>
    store
      .list(groupResource)
      .filter((stored) =>
        ((stored.metadata as JsonObject).ownerReferences as JsonObject[] | undefined)?.some(
          (reference) => reference.uid === ownerUid,
        ),
      )
      .map((stored) => ({ groupResource, object: stored })),
  );
}

describe('ObjectStore.dependentsOf', () => {
  it('finds the objects naming an owner, in every resource, and follows rewrites and removals', () => {
    const store = new ObjectStore();
    store.put(PODS, object('b', ['rs-1']));
    store.put(PODS, object('a', ['rs-1', 'rs-2']));
    store.put(REPLICA_SETS, object('rs', ['deploy-1']));
    store.put(PODS, object('c', ['rs-2'], 'other'));
    expect(store.dependentsOf('rs-1').map((found) => (found.object.metadata as JsonObject).name)).toEqual(['a', 'b']);
    expect(store.dependentsOf('deploy-1')).toEqual([
      { groupResource: REPLICA_SETS, object: object('rs', ['deploy-1']) },
    ]);

    // A rewrite that drops one reference and keeps another.
    store.put(PODS, object('a', ['rs-2']));
    expect(store.dependentsOf('rs-1').map((found) => (found.object.metadata as JsonObject).name)).toEqual(['b']);
    expect(store.dependentsOf('rs-2').map((found) => found.object)).toEqual([
      object('a', ['rs-2']),
      object('c', ['rs-2'], 'other'),
    ]);

    store.remove(PODS, object('b', ['rs-1']));
    expect(store.dependentsOf('rs-1')).toEqual([]);
    store.dropResource(PODS);
    expect(store.dependentsOf('rs-2')).toEqual([]);
    expect(store.dependentsOf('deploy-1')).toHaveLength(1);
  });

  it('ignores references without a uid and counts a repeated reference once', () => {
    const store = new ObjectStore();
    store.put(PODS, object('a', [undefined, 'rs-1', 'rs-1']));
    expect(store.dependentsOf('rs-1')).toHaveLength(1);
    store.put(PODS, object('a', []));
    expect(store.dependentsOf('rs-1')).toEqual([]);
  });

  it('agrees with a full scan over a random sequence of writes and removals', () => {
    let state = 0x9e3779b9;
    // xorshift32: a fixed sequence, so a failure reproduces.
    const next = (bound: number): number => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % bound;
    };
    const store = new ObjectStore();
    const owners = ['u0', 'u1', 'u2', 'u3'];
    for (let step = 0; step < 2_000; step++) {
      const groupResource = next(2) === 0 ? PODS : REPLICA_SETS;
      const name = `o${next(12)}`;
      if (next(4) === 0) {
        store.remove(groupResource, object(name, []));
      } else {
        const references = Array.from({ length: next(3) }, () => owners[next(owners.length)]);
        store.put(groupResource, object(name, references));
      }
      if (step % 50 === 0 && next(10) === 0) store.dropResource(groupResource);
      for (const owner of owners) {
        const key = (found: Dependent) => `${found.groupResource} ${(found.object.metadata as JsonObject).name}`;
        expect(store.dependentsOf(owner).map(key).sort()).toEqual(scanned(store, owner).map(key).sort());
      }
    }
  });
});

describe('ObjectStore history', () => {
  /** Writes one object of `groupResource` at the next revision. */
  function write(store: ObjectStore, groupResource: string, name: string): number {
    const revision = store.nextResourceVersion();
    store.put(groupResource, { metadata: { name, namespace: 'default', resourceVersion: String(revision) } });
    return revision;
  }

  it('keeps the last historyLimit events, however many writes went before, and expires what is older', () => {
    const store = new ObjectStore({ historyLimit: 5 });
    const revisions: number[] = [];
    for (let index = 0; index < 23; index++) revisions.push(write(store, index % 2 ? PODS : REPLICA_SETS, `o${index}`));
    const kept = revisions.slice(-5);
    const resumeFrom = kept[0]! - 1;
    const replayed = [PODS, REPLICA_SETS].flatMap((groupResource) => store.changesSince(resumeFrom, groupResource)!);
    expect(replayed.map((event) => event.resourceVersion).sort((a, b) => a - b)).toEqual(kept);
    expect(store.changesSince(resumeFrom - 1, PODS)).toBeUndefined();
    expect(store.oldestResumableVersion).toBe(resumeFrom);
  });

  it('compacts up to a revision: older resumes expire, newer events replay', () => {
    const store = new ObjectStore();
    const revisions = Array.from({ length: 8 }, (_, index) => write(store, PODS, `o${index}`));
    store.compact(revisions[4]);
    expect(store.changesSince(revisions[3]!, PODS)).toBeUndefined();
    expect(store.changesSince(revisions[4]!, PODS)!.map((event) => event.resourceVersion)).toEqual(revisions.slice(5));
    store.compact();
    expect(store.changesSince(revisions[7]!, PODS)).toEqual([]);
  });
});
