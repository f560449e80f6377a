import { describe, expect, it } from 'vitest';
import { ImageGlob } from './glob';

describe('ImageGlob', () => {
  it('matches `*` across slashes, `?` one character, classes and alternatives', () => {
    expect(ImageGlob.compile('ghcr.io/*').matches('ghcr.io/kyverno/test-verify-image:signed')).toBe(true);
    expect(ImageGlob.compile('ghcr.io/*').matches('docker.io/library/nginx:latest')).toBe(false);
    expect(ImageGlob.compile('reg/app:v?').matches('reg/app:v1')).toBe(true);
    expect(ImageGlob.compile('reg/app:v?').matches('reg/app:v10')).toBe(false);
    expect(ImageGlob.compile('reg/[a-c]pp').matches('reg/bpp')).toBe(true);
    expect(ImageGlob.compile('reg/[!a-c]pp').matches('reg/bpp')).toBe(false);
    expect(ImageGlob.compile('{ghcr.io,quay.io}/team/*').matches('quay.io/team/x:1')).toBe(true);
    expect(ImageGlob.compile('{ghcr.io,quay.io}/team/*').matches('docker.io/team/x:1')).toBe(false);
    expect(ImageGlob.compile('reg/a\\*b').matches('reg/a*b')).toBe(true);
    expect(ImageGlob.compile('reg/a\\*b').matches('reg/axb')).toBe(false);
  });

  it('refuses malformed patterns with the reason', () => {
    expect(() => ImageGlob.compile('reg/[abc')).toThrow('unclosed "["');
    expect(() => ImageGlob.compile('{a,b')).toThrow('unclosed "{"');
    expect(() => ImageGlob.compile('a\\')).toThrow('the pattern ends with an escape');
    expect(() => ImageGlob.compile('reg/[z-a]')).toThrow('invalid range z-a');
  });

  it('stays linear on patterns that make backtracking matchers explode', () => {
    const pattern = ImageGlob.compile(`${'*a'.repeat(40)}b`);
    expect(pattern.matches('a'.repeat(3_000))).toBe(false);
  });
});
