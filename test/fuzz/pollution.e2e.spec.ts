import { describe, expect, it } from 'vitest';
import { assertNoPrototypePollution } from './pollution';

describe('assertNoPrototypePollution', () => {
  it('passes on clean prototypes, reports a new key and removes it again', () => {
    expect(() => assertNoPrototypePollution()).not.toThrow();
    (Object.prototype as unknown as Record<string, unknown>)['polluted'] = 'yes';
    (Array.prototype as unknown as Record<string, unknown>)['extra'] = 1;
    expect(() => assertNoPrototypePollution()).toThrow(
      'prototype pollution: Object.prototype.polluted, Array.prototype.extra',
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(() => assertNoPrototypePollution()).not.toThrow();
  });
});
