import { describe, expect, it } from 'vitest';
import { parseAuthChallenge } from './challenge';

describe('parseAuthChallenge', () => {
  it('reads a bearer challenge', () => {
    expect(
      parseAuthChallenge(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
      ),
    ).toEqual({
      scheme: 'bearer',
      params: {
        realm: 'https://auth.docker.io/token',
        service: 'registry.docker.io',
        scope: 'repository:library/nginx:pull',
      },
    });
  });

  it('reads basic, unquoted values, escapes and spacing', () => {
    expect(parseAuthChallenge('Basic realm="Registry \\"x\\""')).toEqual({
      scheme: 'basic',
      params: { realm: 'Registry "x"' },
    });
    expect(parseAuthChallenge('bearer  realm=https://a/token , Service="s"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://a/token', service: 's' },
    });
  });

  it('gives nothing for a missing or unreadable header', () => {
    expect(parseAuthChallenge(undefined)).toBeUndefined();
    expect(parseAuthChallenge('')).toBeUndefined();
    expect(parseAuthChallenge(`Bearer realm="${'x'.repeat(9000)}"`)).toBeUndefined();
  });
});
