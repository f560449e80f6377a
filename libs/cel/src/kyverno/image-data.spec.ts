import { describe, expect, it } from 'vitest';
import { evaluateKyverno, FakeImageDataPort } from '@edict/cel/testing';

describe('imagedata library (image.GetMetadata)', () => {
  const imageData = new FakeImageDataPort({
    'ghcr.io/acme/app:v1': {
      image: 'ghcr.io/acme/app:v1',
      resolvedImage: 'ghcr.io/acme/app:v1@sha256:' + 'a'.repeat(64),
      registry: 'ghcr.io',
      repository: 'acme/app',
      identifier: 'v1',
      tag: 'v1',
      digest: 'sha256:' + 'a'.repeat(64),
      manifest: { schemaVersion: 2, layers: [{ size: 10 }, { size: 20 }] },
      config: { architecture: 'amd64', os: 'linux', config: { User: '1000' } },
    },
  });

  it("answers the image's manifest and config", async () => {
    await expect(
      evaluateKyverno('image.GetMetadata("ghcr.io/acme/app:v1").config.architecture', { imageData }),
    ).resolves.toBe('amd64');
    await expect(
      evaluateKyverno('image.getMetadata("ghcr.io/acme/app:v1").manifest.layers.size()', { imageData }),
    ).resolves.toBe(2n);
    await expect(
      evaluateKyverno('image.GetMetadata("ghcr.io/acme/app:v1").manifest.schemaVersion == 2.0', { imageData }),
    ).resolves.toBe(true);
  });

  it('fails the expression when the registry fails, and without a port', async () => {
    await expect(evaluateKyverno('image.GetMetadata("ghcr.io/acme/missing:v1")', { imageData })).rejects.toThrow(
      /failed to get image data: .*MANIFEST_UNKNOWN/,
    );
    await expect(evaluateKyverno('image.GetMetadata("nginx")', {})).rejects.toThrow(/image is not available/);
  });

  it('leaves the image() function usable next to the image variable', async () => {
    await expect(evaluateKyverno('image("ghcr.io/acme/app:v1").registry()', {})).resolves.toBe('ghcr.io');
  });
});
