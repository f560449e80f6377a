import { describe, expect, it } from 'vitest';
import { cleanPath, joinPath } from './go-path';

describe('Go path semantics', () => {
  it('cleans and joins like path.Clean / path.Join', () => {
    expect(cleanPath('/a/./b/../c//d/')).toBe('/a/c/d');
    expect(cleanPath('../../x')).toBe('../../x');
    expect(cleanPath('/../x')).toBe('/x');
    expect(cleanPath('')).toBe('.');
    expect(joinPath('/spec/a', './../b')).toBe('/spec/b');
    expect(joinPath('', '')).toBe('');
  });

  it('joins a single element like Go filepath.Join (path_canonicalize)', () => {
    expect(joinPath('/var//lib/../run/./x/')).toBe('/var/run/x');
    expect(joinPath('//etc')).toBe('/etc');
    expect(joinPath('/../..')).toBe('/');
    expect(joinPath('a/../../b')).toBe('../b');
    expect(joinPath('./')).toBe('.');
    expect(joinPath('')).toBe('');
  });
});
