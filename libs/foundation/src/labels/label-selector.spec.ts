import { describe, expect, it } from 'vitest';
import { checkSelector, labelSelectorError, matchesLabelSelector, type LabelSelector } from './label-selector';

const labels = { app: 'web', tier: 'frontend', 'app.kubernetes.io/name': 'shop' };

describe('matchesLabelSelector (Kubernetes semantics)', () => {
  it.each<[string, LabelSelector, Record<string, string> | undefined, boolean]>([
    ['empty selector matches everything', {}, labels, true],
    ['empty selector matches no labels', {}, undefined, true],
    ['matchLabels equal', { matchLabels: { app: 'web' } }, labels, true],
    ['matchLabels differ', { matchLabels: { app: 'db' } }, labels, false],
    ['matchLabels missing key', { matchLabels: { env: 'prod' } }, labels, false],
    ['matchLabels AND', { matchLabels: { app: 'web', tier: 'backend' } }, labels, false],
    ['prefixed key', { matchLabels: { 'app.kubernetes.io/name': 'shop' } }, labels, true],
    ['In holds', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend', 'edge'] }] }, labels, true],
    ['In fails', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }] }, labels, false],
    ['In on absent key', { matchExpressions: [{ key: 'env', operator: 'In', values: ['x'] }] }, labels, false],
    ['NotIn holds', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['backend'] }] }, labels, true],
    [
      'NotIn on absent key holds',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      labels,
      true,
    ],
    ['NotIn fails', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, labels, false],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels, true],
    ['Exists fails', { matchExpressions: [{ key: 'env', operator: 'Exists' }] }, labels, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, labels, true],
    ['DoesNotExist fails', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, labels, false],
    [
      'labels and expressions ANDed',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'Exists' }] },
      labels,
      false,
    ],
    ['wildcards are literal here', { matchLabels: { app: 'w*' } }, labels, false],
  ])('%s', (_title, selector, actual, expected) => {
    expect(matchesLabelSelector(selector, actual)).toBe(expected);
  });

  it.each<[string, LabelSelector, RegExp]>([
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      /values set can't be empty/,
    ],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, /must be empty/],
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Equals' as never, values: ['x'] }] },
      /not a valid label selector operator/,
    ],
    ['bad key', { matchLabels: { 'bad key': 'x' } }, /invalid label key "bad key"/],
    ['bad prefix', { matchLabels: { 'Bad_Prefix/x': 'y' } }, /prefix must be a DNS subdomain/],
    ['bad value', { matchLabels: { a: '-x' } }, /invalid label value "-x"/],
    ['value too long', { matchLabels: { a: 'x'.repeat(64) } }, /invalid label value/],
  ])('rejects %s', (_title, selector, message) => {
    expect(labelSelectorError(selector)).toMatch(message);
    expect(matchesLabelSelector(selector, labels)).toBe(false);
  });

  it('accepts empty label values and 63-character names', () => {
    expect(labelSelectorError({ matchLabels: { a: '', ['k'.repeat(63)]: 'v' } })).toBeUndefined();
    expect(matchesLabelSelector({ matchLabels: { empty: '' } }, { empty: '' })).toBe(true);
  });
});

describe('checkSelector (Kyverno wildcards in matchLabels)', () => {
  it('matches a wildcard value against the label', () => {
    expect(checkSelector({ matchLabels: { app: 'w*' } }, labels)).toEqual({ matched: true });
    expect(checkSelector({ matchLabels: { app: 'd*' } }, labels)).toEqual({ matched: false });
  });

  it('matches a wildcard key', () => {
    expect(checkSelector({ matchLabels: { 'app.kubernetes.io/*': 'shop' } }, labels).matched).toBe(true);
    expect(checkSelector({ matchLabels: { '*': '*' } }, labels).matched).toBe(true);
    expect(checkSelector({ matchLabels: { '*': '*' } }, {}).matched).toBe(false);
  });

  it('falls back to the wildcards replaced by 0 when no label fits', () => {
    expect(checkSelector({ matchLabels: { app: 'v*' } }, { app: 'v0' }).matched).toBe(true);
    expect(checkSelector({ matchLabels: { 'env?': 'x' } }, { env0: 'x' }).matched).toBe(true);
  });

  it('still requires the plain entries and expressions', () => {
    const selector: LabelSelector = { matchLabels: { app: 'w*', tier: 'backend' } };
    expect(checkSelector(selector, labels).matched).toBe(false);
    const withExpression: LabelSelector = {
      matchLabels: { app: '*' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend'] }],
    };
    expect(checkSelector(withExpression, labels).matched).toBe(true);
  });

  it('reports invalid selectors as errors', () => {
    expect(checkSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] }, labels).error).toMatch(/can't be empty/);
    expect(checkSelector({ matchLabels: { app: '*-' } }, { x: 'y' }).error).toMatch(/invalid label value "0-"/);
  });
});
