import { describe, expect, it } from 'vitest';
import { classicProcessOf } from './report-results';

describe('classicProcessOf', () => {
  it("names the process as Kyverno's selectProcess does: background first, both on by default", () => {
    expect(classicProcessOf({})).toBe('background scan');
    expect(classicProcessOf({ background: true, admission: false })).toBe('background scan');
    expect(classicProcessOf({ background: false })).toBe('admission review');
    expect(classicProcessOf({ background: false, admission: false })).toBe('');
  });
});
