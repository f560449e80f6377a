import { describe, expect, it } from 'vitest';
import { compileCel, kyvernoActivation } from '@edict/cel';
import type { JsonValue } from '@edict/foundation';
import { StoreCelGlobalContextPort } from './cel-global-context-port';
import { GlobalContextStore, type ResourceFeed } from './global-context-store';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function feed(objects: JsonValue[]): ResourceFeed {
  return { hasSynced: () => true, list: () => objects, lastError: () => undefined, stop: async () => undefined };
}

describe('StoreCelGlobalContextPort', () => {
  it('reads entries and projections by name; no entry is undefined', async () => {
    const store = new GlobalContextStore({
      openResource: async () => feed([{ metadata: { name: 'web' } }, { metadata: { name: 'db' } }]),
      callApi: () => Promise.reject(new Error('unused')),
    });
    store.upsert({
      metadata: { name: 'deployments' },
      spec: {
        kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments' },
        projections: [{ name: 'names', jmesPath: '[].metadata.name' }],
      },
    });
    await settle();
    const port = new StoreCelGlobalContextPort(store);
    expect(port.get('deployments', 'names')).toEqual(['web', 'db']);
    expect(port.get('deployments', '')).toHaveLength(2);
    expect(port.get('nope', '')).toBeUndefined();
    expect(() => port.get('deployments', 'other')).toThrow(
      'global context entry "deployments" has no projection "other"',
    );

    const program = compileCel(
      '"web" in globalContext.Get("deployments", "names")',
      { params: false, authorizer: false, kyverno: true },
      'any',
    );
    expect(program.evaluate(kyvernoActivation({ globalContext: port }))).toBe(true);
    await store.stop();
  });
});
