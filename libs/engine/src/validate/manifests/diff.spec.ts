import { describe, expect, it } from 'vitest';
import { diffValues, filterIgnored, formatDiff, goTypedString, withoutCanonicalizedImages } from './diff';
import { flatten, isListed, normalizeKey } from './flat-object';

describe('flatten', () => {
  it('maps dotted paths to leaves, dropping nulls and empty containers', () => {
    expect([...flatten({ a: { b: [1, { c: 'x' }], e: {}, f: null, g: [] } })]).toEqual([
      ['a.b.0', 1],
      ['a.b.1.c', 'x'],
    ]);
  });

  it('leaves out masked subtrees', () => {
    expect([...flatten({ metadata: { name: 'a', uid: 'u' }, status: { x: 1 } }, ['status', 'metadata.uid'])]).toEqual([
      ['metadata.name', 'a'],
    ]);
  });
});

describe('isListed / normalizeKey', () => {
  it('reads rules as unanchored patterns once they hold a star', () => {
    expect(isListed('spec.ports.0.nodePort', 'spec.ports.*.nodePort')).toBe(true);
    expect(isListed('x.status.phase', 'status*')).toBe(true);
    expect(isListed('spec.type', 'spec.type')).toBe(true);
    expect(isListed('spec.typeX', 'spec.type')).toBe(false);
    expect(isListed('anything', '')).toBe(true);
    expect(isListed('a(b', 'a(*')).toBe(false); // a pattern that does not compile matches nothing
  });

  it('normalises indexes and quoted segments', () => {
    expect(normalizeKey('spec.containers[0].image')).toBe('spec.containers.0.image');
    expect(normalizeKey('metadata.annotations."a.b/c"')).toBe('metadata.annotations.a.b/c');
  });
});

describe('diffValues', () => {
  it('reports created, updated, deleted and retyped leaves sorted by path', () => {
    const diff = diffValues({ a: 1, b: 'x', c: true, d: '80' }, { a: 2, c: true, d: 80, e: 'new' });
    expect(diff).toEqual([
      { key: 'a', before: 1, after: 2 },
      { key: 'b', before: 'x', after: null },
      { key: 'd', before: '(type: string) 80', after: '(type: float64) %!s(float64=80)' },
      { key: 'e', before: null, after: 'new' },
    ]);
  });

  it('does not report a field of a list entry that only moved', () => {
    const moved = diffValues({ l: [{ n: 'a' }] }, { l: [{ x: 1 }, { n: 'a' }] });
    expect(moved).toEqual([{ key: 'l.0.x', before: null, after: 1 }]);
    // Only paths with an index in the middle are paired: scalar list items are reported as they are.
    expect(diffValues({ args: ['--a', '--b'] }, { args: ['--b'] }).map((d) => d.key)).toEqual(['args.0', 'args.1']);
  });

  it('sets aside image canonicalisation and ignored fields', () => {
    const diff = diffValues(
      { spec: { image: 'nginx', x: 'ubuntu', y: 1 } },
      { spec: { image: 'docker.io/nginx', x: 'ubuntu:latest', y: 2 } },
    );
    expect(withoutCanonicalizedImages(diff).map((d) => d.key)).toEqual(['spec.x', 'spec.y']);
    expect(filterIgnored(diff, ['spec.x', 'spec.y']).map((d) => d.key)).toEqual(['spec.image']);
    expect(filterIgnored(diff, ['spec'])).toEqual([]);
  });

  it("prints the diff as Go's JSON does", () => {
    expect(formatDiff([{ key: 'a<b', before: null, after: '&' }])).toBe(
      '{"items":[{"key":"a\\u003cb","values":{"after":"\\u0026","before":null}}]}',
    );
  });
});

describe('goTypedString', () => {
  it("prints a type mismatch as k8s-manifest-sigstore's (type: %T) %s", () => {
    expect(goTypedString(true)).toBe('(type: bool) %!s(bool=true)');
    expect(goTypedString(1e6)).toBe('(type: float64) %!s(float64=1e+06)');
    expect(goTypedString('80')).toBe('(type: string) 80');
  });
});
