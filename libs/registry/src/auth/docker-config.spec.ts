import { describe, expect, it } from 'vitest';
import { RegistryCredentialsError } from '../registry-errors';
import { dockerConfigFromSecret, findRegistryAuth, parseDockerConfigJson } from './docker-config';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function secret(name: string, config: object, key = '.dockerconfigjson') {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'kyverno' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { [key]: b64(JSON.stringify(config)) },
  };
}

describe('docker config Secrets', () => {
  it('reads auth (base64 user:password), username/password and tokens', () => {
    const config = dockerConfigFromSecret(
      secret('regcred', {
        auths: {
          'ghcr.io': { auth: b64('alice:s3cr:et') },
          'quay.io': { username: 'bob', password: 'pw' },
          'my.registry': { identitytoken: 'refresh' },
        },
      }),
    );
    expect(config.source).toBe('Secret kyverno/regcred');
    expect(config.auths.get('ghcr.io')).toEqual({ username: 'alice', password: 's3cr:et' });
    expect(config.auths.get('quay.io')).toEqual({ username: 'bob', password: 'pw' });
    expect(config.auths.get('my.registry')).toEqual({ identityToken: 'refresh' });
  });

  it('reads the legacy .dockercfg map', () => {
    const config = dockerConfigFromSecret(secret('old', { 'ghcr.io': { auth: b64('a:b') } }, '.dockercfg'));
    expect(config.auths.get('ghcr.io')).toEqual({ username: 'a', password: 'b' });
  });

  it('names the Secret and the field that is wrong', () => {
    expect(() => dockerConfigFromSecret({ metadata: { name: 'x', namespace: 'ns' }, data: {} })).toThrow(
      'Secret ns/x: not a docker config Secret (no data[".dockerconfigjson"] or data[".dockercfg"])',
    );
    expect(() => parseDockerConfigJson('{', 'Secret ns/y')).toThrow(/^Secret ns\/y: docker config is not valid JSON/);
    expect(() => parseDockerConfigJson('{"auths":{"a.io":{"auth":"bm9jb2xvbg=="}}}', 'Secret ns/z')).toThrow(
      new RegistryCredentialsError('Secret ns/z: auths["a.io"].auth: must be base64 of "username:password"'),
    );
    expect(() => parseDockerConfigJson('{"auths":{"a.io":{"username":7}}}', 'S')).toThrow(
      'S: auths["a.io"].username: must be a string',
    );
  });
});

describe('findRegistryAuth', () => {
  const configs = [
    parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'https://index.docker.io/v1/': { username: 'hub', password: '1' },
          '*.example.com': { username: 'glob', password: '2' },
          'registry.example.com': { username: 'exact', password: '3' },
          'registry.example.com/team': { username: 'team', password: '4' },
          'localhost:5000': { username: 'local', password: '5' },
        },
      }),
      'first',
    ),
    parseDockerConfigJson(JSON.stringify({ auths: { 'ghcr.io': { username: 'gh', password: '6' } } }), 'second'),
  ];
  const user = (registry: string, repository: string) => findRegistryAuth(configs, registry, repository)?.auth.username;

  it('matches Docker Hub keys to index.docker.io', () => {
    expect(user('index.docker.io', 'library/nginx')).toBe('hub');
  });

  it('prefers an exact host over a glob, and a longer path', () => {
    expect(user('registry.example.com', 'team/app')).toBe('team');
    expect(user('registry.example.com', 'other/app')).toBe('exact');
    expect(user('registry.example.com', 'teamwork/app')).toBe('exact');
    expect(user('mirror.example.com', 'x')).toBe('glob');
    expect(user('a.b.example.com', 'x')).toBeUndefined();
  });

  it('requires the same port', () => {
    expect(user('localhost:5000', 'app')).toBe('local');
    expect(user('localhost', 'app')).toBeUndefined();
    expect(user('localhost:5001', 'app')).toBeUndefined();
  });

  it('looks through every config and says where the match came from', () => {
    expect(findRegistryAuth(configs, 'ghcr.io', 'org/x')).toMatchObject({ key: 'ghcr.io', source: 'second' });
    expect(user('quay.io', 'x')).toBeUndefined();
  });
});
