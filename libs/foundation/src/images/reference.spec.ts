import { describe, expect, it } from 'vitest';
import { ImageReferenceError, parseImageReference, type ImageInfo } from './reference';

const HEX = '0123456789abcdef'.repeat(4);
const DIGEST = `sha256:${HEX}`;

describe('parseImageReference', () => {
  it.each<[string, ImageInfo]>([
    [
      'nginx',
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'nginx',
        tag: 'latest',
        reference: 'docker.io/nginx:latest',
        referenceWithTag: 'docker.io/nginx:latest',
      },
    ],
    [
      'nginx:1.25',
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'nginx',
        tag: '1.25',
        reference: 'docker.io/nginx:1.25',
        referenceWithTag: 'docker.io/nginx:1.25',
      },
    ],
    [
      'nginx:latest',
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'nginx',
        tag: 'latest',
        reference: 'docker.io/nginx:latest',
        referenceWithTag: 'docker.io/nginx:latest',
      },
    ],
    [
      'team/app:v1',
      {
        registry: 'docker.io',
        name: 'app',
        path: 'team/app',
        tag: 'v1',
        reference: 'docker.io/team/app:v1',
        referenceWithTag: 'docker.io/team/app:v1',
      },
    ],
    [
      'docker.io/library/nginx:1.0',
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'library/nginx',
        tag: '1.0',
        reference: 'docker.io/library/nginx:1.0',
        referenceWithTag: 'docker.io/library/nginx:1.0',
      },
    ],
    [
      'ghcr.io/org/sub/app:2.0',
      {
        registry: 'ghcr.io',
        name: 'app',
        path: 'org/sub/app',
        tag: '2.0',
        reference: 'ghcr.io/org/sub/app:2.0',
        referenceWithTag: 'ghcr.io/org/sub/app:2.0',
      },
    ],
    [
      'localhost:5000/app:1',
      {
        registry: 'localhost:5000',
        name: 'app',
        path: 'app',
        tag: '1',
        reference: 'localhost:5000/app:1',
        referenceWithTag: 'localhost:5000/app:1',
      },
    ],
    [
      'localhost/app',
      {
        registry: 'localhost',
        name: 'app',
        path: 'app',
        tag: 'latest',
        reference: 'localhost/app:latest',
        referenceWithTag: 'localhost/app:latest',
      },
    ],
    [
      `registry.example.com:8443/team/app@${DIGEST}`,
      {
        registry: 'registry.example.com:8443',
        name: 'app',
        path: 'team/app',
        digest: DIGEST,
        reference: `registry.example.com:8443/team/app@${DIGEST}`,
        referenceWithTag: 'registry.example.com:8443/team/app:',
      },
    ],
    [
      `nginx@${DIGEST}`,
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'nginx',
        digest: DIGEST,
        reference: `docker.io/nginx@${DIGEST}`,
        referenceWithTag: 'docker.io/nginx:',
      },
    ],
    [
      `nginx:1.25@${DIGEST}`,
      {
        registry: 'docker.io',
        name: 'nginx',
        path: 'nginx',
        tag: '1.25',
        digest: DIGEST,
        reference: `docker.io/nginx@${DIGEST}`,
        referenceWithTag: 'docker.io/nginx:1.25',
      },
    ],
    [
      '[::1]:5000/app:v1',
      {
        registry: '[::1]:5000',
        name: 'app',
        path: 'app',
        tag: 'v1',
        reference: '[::1]:5000/app:v1',
        referenceWithTag: '[::1]:5000/app:v1',
      },
    ],
    [
      '[2001:db8::1]/app',
      {
        registry: '[2001:db8::1]',
        name: 'app',
        path: 'app',
        tag: 'latest',
        reference: '[2001:db8::1]/app:latest',
        referenceWithTag: '[2001:db8::1]/app:latest',
      },
    ],
    // A lower-case first segment without `.`/`:` is a Docker Hub namespace, not a host.
    [
      'myregistry/app',
      {
        registry: 'docker.io',
        name: 'app',
        path: 'myregistry/app',
        tag: 'latest',
        reference: 'docker.io/myregistry/app:latest',
        referenceWithTag: 'docker.io/myregistry/app:latest',
      },
    ],
    // An upper-case first segment cannot be a path, so it is taken as the host.
    [
      'MyRegistry/app',
      {
        registry: 'MyRegistry',
        name: 'app',
        path: 'app',
        tag: 'latest',
        reference: 'MyRegistry/app:latest',
        referenceWithTag: 'MyRegistry/app:latest',
      },
    ],
    [
      'gcr.io/project/image:tag_with.dots-1',
      {
        registry: 'gcr.io',
        name: 'image',
        path: 'project/image',
        tag: 'tag_with.dots-1',
        reference: 'gcr.io/project/image:tag_with.dots-1',
        referenceWithTag: 'gcr.io/project/image:tag_with.dots-1',
      },
    ],
    [
      'quay.io/a/b__c/d-e.f:1',
      {
        registry: 'quay.io',
        name: 'd-e.f',
        path: 'a/b__c/d-e.f',
        tag: '1',
        reference: 'quay.io/a/b__c/d-e.f:1',
        referenceWithTag: 'quay.io/a/b__c/d-e.f:1',
      },
    ],
    [
      '123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1',
      {
        registry: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
        name: 'app',
        path: 'app',
        tag: '1',
        reference: '123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1',
        referenceWithTag: '123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1',
      },
    ],
    // Underscores are not allowed in hosts: the whole thing is a path and there is no registry.
    [
      'acct_id.dkr.ecr.us-west-2.amazonaws.com/repo',
      {
        name: 'repo',
        path: 'acct_id.dkr.ecr.us-west-2.amazonaws.com/repo',
        tag: 'latest',
        reference: 'acct_id.dkr.ecr.us-west-2.amazonaws.com/repo:latest',
        referenceWithTag: 'acct_id.dkr.ecr.us-west-2.amazonaws.com/repo:latest',
      },
    ],
    [
      'busybox:V1_UPPER',
      {
        registry: 'docker.io',
        name: 'busybox',
        path: 'busybox',
        tag: 'V1_UPPER',
        reference: 'docker.io/busybox:V1_UPPER',
        referenceWithTag: 'docker.io/busybox:V1_UPPER',
      },
    ],
    [
      'a:1',
      {
        registry: 'docker.io',
        name: 'a',
        path: 'a',
        tag: '1',
        reference: 'docker.io/a:1',
        referenceWithTag: 'docker.io/a:1',
      },
    ],
    [
      `repo/app@sha512:${'ab'.repeat(64)}`,
      {
        registry: 'docker.io',
        name: 'app',
        path: 'repo/app',
        digest: `sha512:${'ab'.repeat(64)}`,
        reference: `docker.io/repo/app@sha512:${'ab'.repeat(64)}`,
        referenceWithTag: 'docker.io/repo/app:',
      },
    ],
  ])('%s', (image, expected) => {
    const info = parseImageReference(image);
    expect(info).toEqual(expected);
    // Kyverno omits empty registry/tag/digest from the JSON.
    for (const key of ['registry', 'tag', 'digest'] as const) expect(key in info).toBe(key in expected);
  });

  it('uses a custom default registry, including one with a path', () => {
    expect(parseImageReference('app', 'registry.internal:5000')).toMatchObject({
      registry: 'registry.internal:5000',
      path: 'app',
      reference: 'registry.internal:5000/app:latest',
    });
    expect(parseImageReference('team/app:1', '123.dkr.ecr.eu-west-3.amazonaws.com/docker')).toMatchObject({
      registry: '123.dkr.ecr.eu-west-3.amazonaws.com',
      path: 'docker/team/app',
      name: 'app',
      reference: '123.dkr.ecr.eu-west-3.amazonaws.com/docker/team/app:1',
    });
    expect(parseImageReference('ghcr.io/a/b', 'registry.internal').registry).toBe('ghcr.io');
  });

  it('leaves a defaulted registry out when default registry mutation is disabled', () => {
    expect(parseImageReference('team/nginx', 'gcr.io', { enableDefaultRegistryMutation: false })).toEqual({
      name: 'nginx',
      path: 'team/nginx',
      tag: 'latest',
      reference: 'team/nginx:latest',
      referenceWithTag: 'team/nginx:latest',
    });
    expect(parseImageReference('ghcr.io/a/b:1', 'docker.io', { enableDefaultRegistryMutation: false }).registry).toBe(
      'ghcr.io',
    );
  });

  it.each([
    [
      '',
      'bad image: docker.io/, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format',
    ],
    [
      'Nginx',
      'bad image: docker.io/Nginx, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: repository name must be lowercase',
    ],
    [
      '++',
      'bad image: docker.io/++, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format',
    ],
    ['nginx:', 'invalid reference format'],
    ['nginx:tag with space', 'invalid reference format'],
    [`nginx:${'t'.repeat(129)}`, 'invalid reference format'],
    ['my..app', 'invalid reference format'],
    ['app-', 'invalid reference format'],
    ['ghcr.io/', 'invalid reference format'],
    ['nginx@sha256:abc', 'invalid reference format'],
    [`nginx@sha256:${HEX.toUpperCase()}`, 'invalid checksum digest format'],
    [`nginx@sha256:${HEX}ab`, 'invalid checksum digest length'],
    [`nginx@md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [`nginx@constructor:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [`${'a'.repeat(250)}/b`, 'repository name must not be more than 255 characters'],
  ])('rejects %j', (image, message) => {
    expect(() => parseImageReference(image)).toThrow(ImageReferenceError);
    expect(() => parseImageReference(image)).toThrow(message);
  });

  it('names the image in the error', () => {
    try {
      parseImageReference('++');
      expect.unreachable();
    } catch (error) {
      expect((error as ImageReferenceError).image).toBe('++');
    }
  });

  it('rejects huge and adversarial inputs quickly', () => {
    const start = Date.now();
    expect(() => parseImageReference('a'.repeat(5000))).toThrow('repository name must not be more than 255 characters');
    for (const image of [
      'a'.repeat(200_000) + '!',
      `${'a-'.repeat(3000)}!`,
      `${'a.'.repeat(2000)}/x`,
      `x/${'a_'.repeat(3000)}`,
      `[${':'.repeat(5000)}`,
    ]) {
      expect(() => parseImageReference(image)).toThrow(ImageReferenceError);
    }
    // Linear parsing takes milliseconds; a backtracking one would take minutes on these.
    expect(Date.now() - start).toBeLessThan(5_000);
  });

  it('returns independent copies from its cache', () => {
    const first = parseImageReference('redis:7');
    first.tag = 'mutated';
    expect(parseImageReference('redis:7').tag).toBe('7');
  });
});
