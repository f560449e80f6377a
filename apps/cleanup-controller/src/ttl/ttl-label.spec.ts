import { describe, expect, it } from 'vitest';
import { ttlDeadline } from './ttl-label';

const created = new Date('2026-01-01T10:00:00Z');
const due = (value: string) => ttlDeadline(value, created)?.toISOString();

describe('ttlDeadline', () => {
  it('counts Go durations from the creation', () => {
    expect(due('10s')).toBe('2026-01-01T10:00:10.000Z');
    expect(due('2h45m')).toBe('2026-01-01T12:45:00.000Z');
    expect(due('1.5h')).toBe('2026-01-01T11:30:00.000Z');
  });

  it('reads moments: the compact label form, RFC 3339 and dates', () => {
    expect(due('2023-07-19T120000Z')).toBe('2023-07-19T12:00:00.000Z');
    expect(due('2023-07-19')).toBe('2023-07-19T00:00:00.000Z');
    expect(due('2023-07-19T12:00:00+02:00')).toBe('2023-07-19T10:00:00.000Z');
  });

  it('is no TTL for anything else', () => {
    for (const value of ['10ay', '', 'tomorrow', '2023-13-01', '2023-02-30T120000Z', '10'])
      expect(due(value)).toBeUndefined();
  });
});
