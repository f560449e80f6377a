import { describe, expect, it } from 'vitest';
import { matchesFields, parseFieldSelector } from './field-selector';
import { matchesLabels, parseLabelSelector } from './label-selector';

describe('label selectors', () => {
  const match = (selector: string, labels?: Record<string, string>) =>
    matchesLabels(parseLabelSelector(selector), labels);

  it('supports =, ==, !=, in, notin, exists and !key', () => {
    expect(match('a=1', { a: '1' })).toBe(true);
    expect(match('a==1', { a: '2' })).toBe(false);
    expect(match('a!=1', {})).toBe(true);
    expect(match('a in (1, 2)', { a: '2' })).toBe(true);
    expect(match('a notin (1,2)', { a: '3' })).toBe(true);
    expect(match('a notin (1,2)', undefined)).toBe(true);
    expect(match('a', { a: '' })).toBe(true);
    expect(match('!a', { a: '' })).toBe(false);
    expect(
      match('app.kubernetes.io/name=x,tier in (web),!legacy', { 'app.kubernetes.io/name': 'x', tier: 'web' }),
    ).toBe(true);
    expect(match('', undefined)).toBe(true);
  });

  it('answers 400 for malformed selectors', () => {
    expect(() => parseLabelSelector('a=1,,b')).toThrow(/unable to parse requirement/);
    expect(() => parseLabelSelector('a in (x y)')).toThrow(/invalid label value/);
    expect(() => parseLabelSelector('=x')).toThrow(/unable to parse requirement/);
  });
});

describe('field selectors', () => {
  it('compares declared fields as strings and rejects undeclared ones', () => {
    const pod = {
      metadata: { name: 'p', namespace: 'n' },
      spec: { nodeName: 'node-1', hostNetwork: true },
      status: { phase: 'Running' },
    };
    const parse = (s: string) => parseFieldSelector(s, ['spec.nodeName', 'status.phase', 'spec.hostNetwork']);
    expect(matchesFields(parse('spec.nodeName=node-1,status.phase!=Pending'), pod)).toBe(true);
    expect(matchesFields(parse('spec.hostNetwork=true'), pod)).toBe(true);
    expect(matchesFields(parse('metadata.namespace==other'), pod)).toBe(false);
    expect(() => parse('spec.other=x')).toThrow('field label not supported: spec.other');
    expect(() => parse('nonsense')).toThrow(/invalid selector/);
    const event = { metadata: { name: 'e' }, source: { component: 'kubelet' } };
    expect(matchesFields(parseFieldSelector('source=kubelet', ['source']), event)).toBe(true);
  });
});
