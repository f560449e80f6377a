import { describe, expect, it } from 'vitest';
import { ImageDataCache } from './image-data-cache';

describe('ImageDataCache', () => {
  const counter = () => {
    let calls = 0;
    return {
      load: (value: string) => async () => ({ value, call: ++calls }),
      get calls() {
        return calls;
      },
    };
  };

  it('reuses a value until its TTL passes', async () => {
    let now = 1000;
    const cache = new ImageDataCache(10, 500, () => now);
    const loads = counter();
    expect(await cache.get('a', loads.load('a'))).toEqual({ value: 'a', call: 1 });
    now += 499;
    expect(await cache.get('a', loads.load('a'))).toEqual({ value: 'a', call: 1 });
    now += 1;
    expect(await cache.get('a', loads.load('a'))).toEqual({ value: 'a', call: 2 });
  });

  it('evicts the least recently used beyond its size', async () => {
    const cache = new ImageDataCache(2, 60_000);
    const loads = counter();
    await cache.get('a', loads.load('a'));
    await cache.get('b', loads.load('b'));
    await cache.get('a', loads.load('a'));
    await cache.get('c', loads.load('c'));
    expect(cache.size).toBe(2);
    expect(loads.calls).toBe(3);
    await cache.get('a', loads.load('a'));
    expect(loads.calls).toBe(3);
    await cache.get('b', loads.load('b'));
    expect(loads.calls).toBe(4);
  });

  it('shares one fetch between concurrent lookups and forgets failures', async () => {
    const cache = new ImageDataCache(10, 60_000);
    let calls = 0;
    const failing = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('boom');
    };
    const results = await Promise.allSettled([cache.get('x', failing), cache.get('x', failing)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(cache.size).toBe(0);
    await expect(cache.get('x', async () => ({ ok: true }))).resolves.toEqual({ ok: true });
  });

  it('caches nothing with zero entries', async () => {
    const cache = new ImageDataCache(0, 60_000);
    const loads = counter();
    await cache.get('a', loads.load('a'));
    await cache.get('a', loads.load('a'));
    expect(loads.calls).toBe(2);
  });
});
