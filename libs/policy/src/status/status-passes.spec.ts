import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebhookPublication } from './policy-status';
import { StatusPasses, statusWriterOptions } from './status-passes';

/** Triggers the test fires by hand. */
function triggers() {
  const changes = new Set<() => void>();
  const published = new Set<(publication: WebhookPublication) => void>();
  const terms = new Set<() => void>();
  return {
    onChange: (listener: () => void) => (changes.add(listener), () => changes.delete(listener)),
    publications: {
      onPublished: (listener: (publication: WebhookPublication) => void) => (
        published.add(listener),
        () => published.delete(listener)
      ),
    },
    leader: {
      isLeader: () => true,
      onStartedLeading: (listener: () => void) => (terms.add(listener), () => terms.delete(listener)),
    },
    change: () => changes.forEach((listener) => listener()),
    publish: (publication: WebhookPublication) => published.forEach((listener) => listener(publication)),
    newTerm: () => terms.forEach((listener) => listener()),
    listeners: () => changes.size + published.size + terms.size,
  };
}

const PUBLICATION = { policies: new Map() } as unknown as WebhookPublication;

afterEach(() => vi.useRealTimers());

describe('statusWriterOptions', () => {
  it('fills the defaults and refuses counts that are not non-negative integers, naming the writer', () => {
    expect(statusWriterOptions('CelPolicyStatusWriter', {})).toMatchObject({
      debounceMs: 100,
      retryMs: 2_000,
      maxConflictRetries: 3,
    });
    expect(() => statusWriterOptions('CelPolicyStatusWriter', { retryMs: -1 })).toThrow(
      'CelPolicyStatusWriter options: retryMs: expected a non-negative integer, got -1',
    );
    expect(() => statusWriterOptions('PolicyStatusWriter', { debounceMs: 1.5 })).toThrow(
      'PolicyStatusWriter options: debounceMs: expected a non-negative integer, got 1.5',
    );
  });
});

describe('StatusPasses', () => {
  it('debounces triggers into one pass, pulls a pending pass forward for a sooner one, never pushes it back', async () => {
    vi.useFakeTimers();
    const fired = triggers();
    let passes = 0;
    const scheduler = new StatusPasses(fired, 100, async () => ++passes, { warn: () => undefined }, 'test');
    scheduler.start();
    fired.change();
    fired.change();
    await vi.advanceTimersByTimeAsync(99);
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(1);

    scheduler.schedule(1_000); // a retry far off...
    scheduler.schedule(10); // ...pulled forward by a sooner trigger
    await vi.advanceTimersByTimeAsync(10);
    expect(passes).toBe(2);

    scheduler.schedule(10);
    scheduler.schedule(1_000); // a later one does not push the pending pass back
    await vi.advanceTimersByTimeAsync(10);
    expect(passes).toBe(3);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(passes).toBe(3);
  });

  it('keeps the last publication until a new leadership term, and stops listening when stopped', async () => {
    vi.useFakeTimers();
    const fired = triggers();
    let passes = 0;
    const scheduler = new StatusPasses(fired, 0, async () => ++passes, { warn: () => undefined }, 'test');
    scheduler.start();
    scheduler.start(); // a second start subscribes nothing more
    expect(fired.listeners()).toBe(3);
    fired.publish(PUBLICATION);
    expect(scheduler.lastPublication()).toBe(PUBLICATION);
    fired.newTerm();
    expect(scheduler.lastPublication()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);

    scheduler.stop();
    expect(scheduler.stopped).toBe(true);
    expect(fired.listeners()).toBe(0);
    scheduler.schedule(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(passes).toBe(1);
  });
});
