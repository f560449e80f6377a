import { describe, expect, it } from 'vitest';
import { ImageVerificationError } from './errors';
import { parseImageRef } from './model';

describe('parseImageRef', () => {
  it('normalises Docker Hub names as Docker does', () => {
    expect(parseImageRef('nginx')).toEqual({
      image: 'nginx',
      registry: 'docker.io',
      repository: 'library/nginx',
      repo: 'docker.io/library/nginx',
      tag: 'latest',
    });
    expect(parseImageRef('index.docker.io/team/app:1.0').repo).toBe('docker.io/team/app');
    expect(parseImageRef('docker.io/nginx:1.25').repository).toBe('library/nginx');
  });

  it('keeps other registries, ports, tags and digests', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageRef(`127.0.0.1:5000/team/app:v1@${digest}`)).toEqual({
      image: `127.0.0.1:5000/team/app:v1@${digest}`,
      registry: '127.0.0.1:5000',
      repository: 'team/app',
      repo: '127.0.0.1:5000/team/app',
      tag: 'v1',
      digest,
    });
    expect(parseImageRef(`ghcr.io/org/app@${digest}`)).toEqual({
      image: `ghcr.io/org/app@${digest}`,
      registry: 'ghcr.io',
      repository: 'org/app',
      repo: 'ghcr.io/org/app',
      digest,
    });
  });

  it('refuses invalid references naming the field', () => {
    expect(() => parseImageRef('Not Valid')).toThrow(ImageVerificationError);
    expect(() => parseImageRef('app@sha256:123')).toThrow(/^image: invalid image reference/);
  });
});
