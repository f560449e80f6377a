import { describe, expect, it } from 'vitest';
import { VerificationCache } from './verification-cache';

describe('VerificationCache', () => {
  it('forgets entries after the TTL', () => {
    let now = 1000;
    const cache = new VerificationCache(10, 500, () => now);
    cache.set('k', { verified: true });
    now = 1499;
    expect(cache.get('k')).toEqual({ verified: true });
    now = 1500;
    expect(cache.get('k')).toBeUndefined();
  });

  it('is bounded in entries', () => {
    const cache = new VerificationCache(2, 60_000);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBe(3);
  });

  it('keys are short and stable whatever the parts hold', () => {
    const pem = 'x'.repeat(10_000);
    expect(VerificationCache.key('sig', pem)).toBe(VerificationCache.key('sig', pem));
    expect(VerificationCache.key('sig', pem)).toHaveLength(64);
    expect(VerificationCache.key('sig', pem)).not.toBe(VerificationCache.key('att', pem));
  });

  it('refuses nonsense bounds', () => {
    expect(() => new VerificationCache(0, 1)).toThrow(/maxEntries/);
    expect(() => new VerificationCache(1, 0)).toThrow(/ttlMs/);
  });
});
