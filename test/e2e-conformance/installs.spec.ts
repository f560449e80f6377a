import { describe, expect, it } from 'vitest';
import { installKeyOf } from './run-suite';

describe('installKeyOf', () => {
  const installs = { a: {}, 'a/b': {}, 'a/bc': {}, 'x/y/z': {} };

  it("takes the test's own path first, else the longest folder above it", () => {
    expect(installKeyOf(installs, 'a/b')).toBe('a/b');
    expect(installKeyOf(installs, 'a/b/test')).toBe('a/b');
    expect(installKeyOf(installs, 'a/other')).toBe('a');
  });

  it('matches whole folder names only', () => {
    expect(installKeyOf(installs, 'a/bcd')).toBe('a');
    expect(installKeyOf(installs, 'ab')).toBeUndefined();
    expect(installKeyOf(installs, 'x/y')).toBeUndefined();
  });
});
