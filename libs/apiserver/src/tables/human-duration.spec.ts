import { describe, expect, it } from 'vitest';
import { ageOf, humanDuration } from './human-duration';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it.each([
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 12 * s, '3m12s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [5 * h + 10 * m, '5h10m'],
    [8 * h + 59 * m, '8h'],
    [47 * h, '47h'],
    [3 * d + 4 * h, '3d4h'],
    [3 * d, '3d'],
    [30 * d, '30d'],
    [2 * 365 * d + 30 * d, '2y30d'],
    [9 * 365 * d, '9y'],
  ])('%d ms reads %s', (milliseconds, text) => {
    expect(humanDuration(milliseconds)).toBe(text);
  });

  it('reads ages of timestamps, unknown without one and invalid when unreadable', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    expect(ageOf('2026-01-01T00:55:00Z', now)).toBe('5m');
    expect(ageOf(undefined, now)).toBe('<unknown>');
    expect(ageOf('yesterday', now)).toBe('<invalid>');
  });
});
