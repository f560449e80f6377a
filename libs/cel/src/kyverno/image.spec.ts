import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

const DIGEST = 'sha256:' + 'ab'.repeat(32);

describe('image library', () => {
  const parts = (reference: string) =>
    evaluateKyverno(
      `[image(object.r).registry(), image(object.r).repository(), image(object.r).tag(), image(object.r).digest(), image(object.r).identifier(), string(image(object.r).containsDigest())]`,
      {},
      {},
      { object: { r: reference } },
    );

  it('reads Docker Hub references as go-containerregistry does', async () => {
    await expect(parts('nginx')).resolves.toEqual([
      'index.docker.io',
      'library/nginx',
      'latest',
      '',
      'latest',
      'false',
    ]);
    await expect(parts('docker.io/bitnami/redis:7')).resolves.toEqual([
      'index.docker.io',
      'bitnami/redis',
      '7',
      '',
      '7',
      'false',
    ]);
  });

  it('reads registries with ports, tags and digests', async () => {
    await expect(parts('registry.local:5000/team/app:1.2')).resolves.toEqual([
      'registry.local:5000',
      'team/app',
      '1.2',
      '',
      '1.2',
      'false',
    ]);
    await expect(parts(`ghcr.io/acme/app@${DIGEST}`)).resolves.toEqual([
      'ghcr.io',
      'acme/app',
      '',
      DIGEST,
      DIGEST,
      'true',
    ]);
    await expect(parts(`ghcr.io/acme/app:v1@${DIGEST}`)).resolves.toEqual([
      'ghcr.io',
      'acme/app',
      'v1',
      DIGEST,
      `v1@${DIGEST}`,
      'true',
    ]);
  });

  it('has parseImageReference (the current name) and isImage', async () => {
    await expect(evaluateKyverno('parseImageReference("ghcr.io/acme/app:v1").tag()')).resolves.toBe('v1');
    await expect(evaluateKyverno('isImage("ghcr.io/acme/app:v1")')).resolves.toBe(true);
    await expect(evaluateKyverno('isImage("UPPER/case")')).resolves.toBe(false);
    await expect(evaluateKyverno('isImage("a")')).resolves.toBe(false);
    await expect(evaluateKyverno('isImage("app@sha256:short")')).resolves.toBe(false);
  });

  it('fails on a reference it cannot parse', async () => {
    await expect(evaluateKyverno('image("Bad:Ref:x").registry()')).rejects.toThrow(/could not parse reference/);
  });
});
