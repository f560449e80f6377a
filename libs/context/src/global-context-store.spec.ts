import { describe, expect, it } from 'vitest';
import type { APICall } from '@edict/engine';
import type { JsonValue } from '@edict/foundation';
import { GlobalContextStore, type GroupVersionResourceRef, type ResourceFeed } from './global-context-store';

/** Timers run by hand: `runAll` fires what is due, in order. */
function manualTimers() {
  const pending: Array<{ run: () => void; ms: number; cancelled: boolean }> = [];
  return {
    pending,
    setTimer(run: () => void, ms: number) {
      const timer = { run, ms, cancelled: false };
      pending.push(timer);
      return { cancel: () => (timer.cancelled = true) };
    },
    fireNext() {
      const timer = pending.shift();
      if (timer && !timer.cancelled) timer.run();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function fakeFeed(
  objects: JsonValue[],
): ResourceFeed & { synced: boolean; stopped: boolean; set(list: JsonValue[]): void } {
  let list = objects;
  return {
    synced: true,
    stopped: false,
    hasSynced() {
      return this.synced;
    },
    list: () => list,
    lastError: () => undefined,
    async stop() {
      this.stopped = true;
    },
    set(next) {
      list = next;
    },
  };
}

describe('GlobalContextStore: kubernetesResource entries', () => {
  it('serves the objects of the named resource, and projections of them', async () => {
    const opened: GroupVersionResourceRef[] = [];
    const feed = fakeFeed([
      { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } },
      { metadata: { name: 'db', namespace: 'shop' }, spec: { replicas: 1 } },
    ]);
    const store = new GlobalContextStore({
      openResource: async (ref) => {
        opened.push(ref);
        return feed;
      },
      callApi: () => Promise.reject(new Error('unused')),
    });
    store.upsert({
      metadata: { name: 'deployments' },
      spec: {
        kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'shop' },
        projections: [{ name: 'names', jmesPath: '[].metadata.name' }],
      },
    });
    await settle();
    expect(opened).toEqual([{ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'shop' }]);
    expect(store.read('deployments')).toHaveLength(2);
    expect(store.read('deployments.names')).toEqual(['web', 'db']);
    feed.set([{ metadata: { name: 'api' } }]);
    expect(store.read('deployments.names')).toEqual(['api']);
    expect(() => store.read('deployments.replicas')).toThrow(
      'global context entry "deployments" has no projection "replicas" (it has: names)',
    );
    store.remove('deployments');
    await settle();
    expect(feed.stopped).toBe(true);
    expect(() => store.read('deployments')).toThrow('global context entry "deployments" does not exist');
  });

  it('says the entry is not loaded yet before its informer syncs, and names a resource the server lacks', async () => {
    const feed = fakeFeed([]);
    feed.synced = false;
    const outcomes: object[] = [];
    const store = new GlobalContextStore({
      openResource: async (ref) => {
        if (ref.resource === 'widgets')
          throw new Error('the API server serves no resource "widgets" in example.com/v1');
        return feed;
      },
      callApi: () => Promise.reject(new Error('unused')),
      onOutcome: (name, outcome) => outcomes.push({ name, ...outcome }),
    });
    store.upsert({ metadata: { name: 'pods' }, spec: { kubernetesResource: { version: 'v1', resource: 'pods' } } });
    store.upsert({
      metadata: { name: 'widgets' },
      spec: { kubernetesResource: { group: 'example.com', version: 'v1', resource: 'widgets' } },
    });
    await settle();
    expect(() => store.read('pods')).toThrow('global context entry "pods" is not loaded yet (listing v1/pods)');
    expect(() => store.read('widgets')).toThrow(
      'global context entry "widgets": cannot watch example.com/v1/widgets: the API server serves no resource "widgets" in example.com/v1',
    );
    // Kyverno's FailedToList event, in its words.
    expect(outcomes).toEqual([
      expect.objectContaining({
        name: 'widgets',
        ready: false,
        event: { reason: 'FailedToList', message: 'failed to sync cache for example.com/v1, Resource=widgets' },
      }),
    ]);
    await store.stop();
  });
});

describe('GlobalContextStore: apiCall entries', () => {
  it('calls at once, serves the answer and its projections, and calls again every refreshInterval', async () => {
    const timers = manualTimers();
    const calls: APICall[] = [];
    let answer: JsonValue = { items: [{ name: 'eu' }] };
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: async (call) => {
        calls.push(call);
        return answer;
      },
      setTimer: timers.setTimer,
    });
    expect(() => store.read('regions')).toThrow('global context entry "regions" does not exist');
    store.upsert({
      metadata: { name: 'regions' },
      spec: {
        apiCall: { service: { url: 'https://regions.example/list' }, refreshInterval: '30s' },
        projections: [{ name: 'names', jmesPath: 'items[].name' }],
      },
    });
    expect(() => store.read('regions')).toThrow(
      'global context entry "regions" is not loaded yet (first call pending)',
    );
    await settle();
    expect(store.read('regions.names')).toEqual(['eu']);
    expect(calls).toEqual([{ service: { url: 'https://regions.example/list' } }]);
    expect(timers.pending.map((t) => t.ms)).toEqual([30_000]);

    answer = { items: [{ name: 'eu' }, { name: 'us' }] };
    timers.fireNext();
    await settle();
    expect(store.read('regions.names')).toEqual(['eu', 'us']);
    await store.stop();
    expect(timers.pending.every((t) => t.cancelled)).toBe(true);
  });

  it('retries up to retryLimit, then serves the failure until a call succeeds again', async () => {
    const timers = manualTimers();
    let failing = true;
    let attempts = 0;
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: async () => {
        attempts++;
        if (failing) throw new Error('connection refused');
        return { ok: true };
      },
      setTimer: timers.setTimer,
    });
    store.upsert({ metadata: { name: 'flaky' }, spec: { apiCall: { urlPath: '/api/v1/nodes', retryLimit: 2 } } });
    await settle();
    expect(attempts).toBe(1);
    timers.fireNext(); // the retry delay
    await settle();
    expect(attempts).toBe(2);
    expect(() => store.read('flaky')).toThrow('global context entry "flaky" failed: connection refused');
    expect(timers.pending.at(-1)?.ms).toBe(10 * 60_000);
    failing = false;
    timers.fireNext();
    await settle();
    expect(store.read('flaky')).toEqual({ ok: true });
    await store.stop();
  });

  it('names what makes an entry invalid', () => {
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: () => Promise.reject(new Error('unused')),
      setTimer: manualTimers().setTimer,
    });
    store.upsert({
      metadata: { name: 'both' },
      spec: { apiCall: { urlPath: '/x' }, kubernetesResource: { version: 'v1', resource: 'pods' } },
    });
    store.upsert({ metadata: { name: 'none' }, spec: {} });
    store.upsert({ metadata: { name: 'fast' }, spec: { apiCall: { urlPath: '/x', refreshInterval: '10ms' } } });
    store.upsert({ metadata: { name: 'badduration' }, spec: { apiCall: { urlPath: '/x', refreshInterval: 'soon' } } });
    store.upsert({
      metadata: { name: 'badprojection' },
      spec: { apiCall: { urlPath: '/x' }, projections: [{ name: 'p', jmesPath: 'items[' }] },
    });
    expect(() => store.read('both')).toThrow(
      'global context entry "both" is invalid: it has both kubernetesResource and apiCall',
    );
    expect(() => store.read('none')).toThrow('it has neither kubernetesResource nor apiCall');
    expect(() => store.read('fast')).toThrow('apiCall.refreshInterval must be at least 1s, got 10ms');
    expect(() => store.read('badduration')).toThrow('apiCall.refreshInterval "soon" is not a duration');
    expect(() => store.read('badprojection')).toThrow(/projections\[0\] \(p\): invalid jmesPath/);
  });

  it('restarts an entry whose spec changed, and keeps one whose spec did not', async () => {
    const timers = manualTimers();
    const urls: string[] = [];
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: async (call) => {
        urls.push(call.urlPath ?? '');
        return call.urlPath ?? null;
      },
      setTimer: timers.setTimer,
    });
    store.upsert({ metadata: { name: 'e', resourceVersion: '1' }, spec: { apiCall: { urlPath: '/a' } } });
    store.upsert({ metadata: { name: 'e', resourceVersion: '2' }, spec: { apiCall: { urlPath: '/a' } } });
    await settle();
    store.upsert({ metadata: { name: 'e', resourceVersion: '3' }, spec: { apiCall: { urlPath: '/b' } } });
    await settle();
    expect(urls).toEqual(['/a', '/b']);
    expect(store.read('e')).toBe('/b');
    await store.stop();
  });
});

describe('GlobalContextStore: outcomes and the entry cap', () => {
  it('reports each apiCall outcome (Ready with its refresh time, or the error) and each invalid entry', async () => {
    const outcomes: Array<[string, boolean, string, boolean]> = [];
    let fail = false;
    const timers = manualTimers();
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: async () => {
        if (fail) throw new Error('503 from the service');
        return { ok: true };
      },
      setTimer: timers.setTimer,
      onOutcome: (name, outcome) =>
        outcomes.push([name, outcome.ready, outcome.message, outcome.refreshedAt instanceof Date]),
    });
    store.upsert({ metadata: { name: 'regions' }, spec: { apiCall: { urlPath: '/x', retryLimit: 1 } } });
    await settle();
    fail = true;
    timers.fireNext();
    await settle();
    store.upsert({ metadata: { name: 'broken' }, spec: {} });
    expect(outcomes).toEqual([
      ['regions', true, 'Ready', true],
      ['regions', false, '503 from the service', false],
      [
        'broken',
        false,
        'global context entry "broken" is invalid: it has neither kubernetesResource nor apiCall',
        false,
      ],
    ]);
    await store.stop();
  });

  it('reports a resource entry Ready once its feed has synced', async () => {
    const outcomes: string[] = [];
    const feed = { ...fakeFeed([]), whenSynced: () => Promise.resolve() };
    const store = new GlobalContextStore({
      openResource: async () => feed,
      callApi: () => Promise.reject(new Error('unused')),
      onOutcome: (name, outcome) => outcomes.push(`${name}:${outcome.ready}:${outcome.message}`),
    });
    store.upsert({ metadata: { name: 'pods' }, spec: { kubernetesResource: { version: 'v1', resource: 'pods' } } });
    await settle();
    await settle();
    expect(outcomes).toEqual(['pods:true:Ready']);
    await store.stop();
  });

  it('refuses an entry beyond maxEntries, saying why, and loads it once another is removed', async () => {
    const outcomes: string[] = [];
    const store = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('unused')),
      callApi: async (call) => ({ path: call.urlPath ?? '' }),
      setTimer: manualTimers().setTimer,
      maxEntries: 1,
      onOutcome: (name, outcome) => outcomes.push(`${name}:${outcome.ready}`),
    });
    store.upsert({ metadata: { name: 'first' }, spec: { apiCall: { urlPath: '/first' } } });
    store.upsert({ metadata: { name: 'second' }, spec: { apiCall: { urlPath: '/second' } } });
    await settle();
    expect(store.names()).toEqual(['first']);
    expect(() => store.read('second')).toThrow('global context entry "second" does not exist');
    expect(outcomes).toEqual(['second:false', 'first:true']);
    store.remove('first');
    await settle();
    expect(store.names()).toEqual(['second']);
    expect(store.read('second')).toEqual({ path: '/second' });
    await store.stop();
  });
});
