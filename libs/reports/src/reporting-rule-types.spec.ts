import { describe, expect, it } from 'vitest';
import { allowedResults } from './reporting-rule-types';

describe('allowedResults (--allowedResults)', () => {
  const rows = [{ result: 'pass' }, { result: 'fail' }, { result: 'warn' }, { result: 'skip' }];

  it('keeps every result when no type is listed (the default)', () => {
    expect(allowedResults(rows, [])).toEqual(rows);
  });

  it('keeps only the listed types', () => {
    expect(allowedResults(rows, ['fail', 'warn']).map((row) => row.result)).toEqual(['fail', 'warn']);
  });
});
