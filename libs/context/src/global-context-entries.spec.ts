import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { EventInput, KubeResources } from '@edict/kube';
import { GlobalContextEntries } from './global-context-entries';

type Handler = (object: KubeObject) => void;

/** One stored GlobalContextEntry behind find/replace (status subresource), and an informer fed by hand. */
function fixture(options: { updateStatus: boolean; fail?: boolean }) {
  let stored: KubeObject = {
    apiVersion: 'kyverno.io/v2beta1',
    kind: 'GlobalContextEntry',
    metadata: { name: 'regions', uid: 'uid-regions', generation: 2, resourceVersion: '1' },
    spec: { apiCall: { urlPath: '/api/v1/namespaces', refreshInterval: '1h', retryLimit: 1 } },
  };
  const writes: KubeObject[] = [];
  const events: EventInput[] = [];
  const handlers = new Map<string, Handler>();
  const resources = {
    find: async () => stored,
    replace: async (object: KubeObject, query: { subresource?: string }) => {
      expect(query.subresource).toBe('status');
      writes.push(object);
      stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(writes.length + 1) } };
      return stored;
    },
  } as unknown as KubeResources;
  const entries = new GlobalContextEntries(
    { watchTimeoutSeconds: 60 },
    {
      resources,
      informers: {
        create: () =>
          ({
            on: (event: string, handler: Handler) => handlers.set(event, handler),
            start: () => undefined,
            hasSynced: () => true,
          }) as never,
      },
      callers: {
        kube: async () => {
          if (options.fail) throw new Error('the API server answered 500');
          return { items: [] };
        },
        service: () => Promise.reject(new Error('unused')),
      },
      updateStatus: options.updateStatus,
      recordEvent: (event) => events.push(event),
    },
  );
  return { entries, writes, events, add: () => handlers.get('add')!(stored), status: () => stored['status'] };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('GlobalContextEntries status (the admission controller writes it, as Kyverno)', () => {
  it('sets Ready True/Succeeded with the last refresh time after a successful call', async () => {
    const { entries, add, status } = fixture({ updateStatus: true });
    add();
    await settle();
    expect(status()).toMatchObject({
      ready: true,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: 'Ready', observedGeneration: 2 }],
      lastRefreshTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    await entries.stop();
  });

  it('sets Ready False/Failed with the error, and no refresh time, when the call fails', async () => {
    const { entries, add, status } = fixture({ updateStatus: true, fail: true });
    add();
    await settle();
    expect(status()).toMatchObject({
      ready: false,
      conditions: [{ type: 'Ready', status: 'False', reason: 'Failed' }],
    });
    expect(JSON.stringify(status())).toContain('500');
    expect(status()).not.toHaveProperty('lastRefreshTime');
    await entries.stop();
  });

  it('writes nothing in the other controllers', async () => {
    const { entries, add, writes } = fixture({ updateStatus: false });
    add();
    await settle();
    expect(writes).toEqual([]);
    await entries.stop();
  });
});

describe('GlobalContextEntries events (Kyverno pkg/globalcontext/event)', () => {
  it('records a Warning FailedToCallAPI with the error on the entry when its apiCall fails, in every controller', async () => {
    const { entries, add, events } = fixture({ updateStatus: false, fail: true });
    add();
    await settle();
    expect(events).toEqual([
      {
        regarding: {
          apiVersion: 'kyverno.io/v2beta1',
          kind: 'GlobalContextEntry',
          name: 'regions',
          uid: 'uid-regions',
        },
        type: 'Warning',
        reason: 'FailedToCallAPI',
        action: 'Retrying',
        note: expect.stringContaining('the API server answered 500'),
      },
    ]);
    await entries.stop();
  });

  it('records nothing when the call succeeds', async () => {
    const { entries, add, events } = fixture({ updateStatus: true });
    add();
    await settle();
    expect(events).toEqual([]);
    await entries.stop();
  });
});
