import { describe, expect, it } from 'vitest';
import { formatAnchor, parseAnchor } from './anchor';

describe('parseAnchor', () => {
  it.each([
    ['(name)', '', 'name'],
    ['<(image)', '<', 'image'],
    ['^(containers)', '^', 'containers'],
    ['=(hostPID)', '=', 'hostPID'],
    ['X(hostNetwork)', 'X', 'hostNetwork'],
    ['+(app)', '+', 'app'],
    ['((nested))', '', '(nested)'],
    ['(app.kubernetes.io/name)', '', 'app.kubernetes.io/name'],
  ])('%s is a %j anchor on %s', (text, modifier, key) => {
    expect(parseAnchor(text)).toEqual({ modifier, key });
  });

  it.each(['name', '()', 'X()', '(', ')', '(name', 'name)', 'Y(name)', 'x(name)', ' (name)', ''])(
    '%j is not an anchor',
    (text) => {
      expect(parseAnchor(text)).toBeUndefined();
    },
  );

  it('round-trips through formatAnchor', () => {
    expect(formatAnchor('=', 'a')).toBe('=(a)');
    expect(formatAnchor('', 'a')).toBe('(a)');
  });
});
