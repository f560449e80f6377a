import { describe, expect, it } from 'vitest';
import { RegistryError } from '../registry-errors';
import { parseRegistryReference } from './registry-reference';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseRegistryReference', () => {
  it.each([
    ['nginx', 'index.docker.io', 'registry-1.docker.io', 'library/nginx', 'latest'],
    ['nginx:1.27', 'index.docker.io', 'registry-1.docker.io', 'library/nginx', '1.27'],
    ['docker.io/nginx:1.27', 'index.docker.io', 'registry-1.docker.io', 'library/nginx', '1.27'],
    ['index.docker.io/team/app:v1', 'index.docker.io', 'registry-1.docker.io', 'team/app', 'v1'],
    ['ghcr.io/org/tool:2', 'ghcr.io', 'ghcr.io', 'org/tool', '2'],
    ['ghcr.io/tool', 'ghcr.io', 'ghcr.io', 'tool', 'latest'],
    ['127.0.0.1:5000/app:dev', '127.0.0.1:5000', '127.0.0.1:5000', 'app', 'dev'],
    ['localhost/app', 'localhost', 'localhost', 'app', 'latest'],
    [`nginx:1.27@${DIGEST}`, 'index.docker.io', 'registry-1.docker.io', 'library/nginx', DIGEST],
  ])('%s', (image, registry, host, repository, identifier) => {
    expect(parseRegistryReference(image)).toMatchObject({ image, registry, host, repository, identifier });
  });

  it('keeps the digest apart', () => {
    expect(parseRegistryReference(`quay.io/a/b@${DIGEST}`).digest).toBe(DIGEST);
    expect(parseRegistryReference('quay.io/a/b:1').digest).toBeUndefined();
  });

  it('names the image when the reference is invalid', () => {
    expect(() => parseRegistryReference('Not A Ref')).toThrow(RegistryError);
    expect(() => parseRegistryReference('Not A Ref')).toThrow(/^image Not A Ref: invalid image reference: /);
  });
});
