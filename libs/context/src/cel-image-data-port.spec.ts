import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { RegistryCelImageDataPort } from './cel-image-data-port';
import type { ImageDataSource } from './image-data-source';

const DIGEST = 'sha256:' + 'c'.repeat(64);

/** The registry client's answer (the classic imageRegistry shape). */
function source(data: JsonObject): ImageDataSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    imageData: async (reference: string) => {
      asked.push(reference);
      return data;
    },
  };
}

describe('RegistryCelImageDataPort', () => {
  it("gives CEL Kyverno's image data shape for a tag reference", async () => {
    const images = source({
      image: 'ghcr.io/acme/app:v1',
      registry: 'ghcr.io',
      repository: 'acme/app',
      identifier: 'v1',
      resolvedImage: `ghcr.io/acme/app@${DIGEST}`,
      manifest: { schemaVersion: 2 },
      configData: { architecture: 'arm64' },
    });
    await expect(new RegistryCelImageDataPort(images).get('ghcr.io/acme/app:v1')).resolves.toEqual({
      image: 'ghcr.io/acme/app:v1',
      resolvedImage: `ghcr.io/acme/app:v1@${DIGEST}`,
      registry: 'ghcr.io',
      repository: 'acme/app',
      identifier: 'v1',
      tag: 'v1',
      digest: DIGEST,
      manifest: { schemaVersion: 2 },
      config: { architecture: 'arm64' },
    });
    expect(images.asked).toEqual(['ghcr.io/acme/app:v1']);
  });

  it('gives no tag for a digest reference', async () => {
    const images = source({
      image: `ghcr.io/acme/app@${DIGEST}`,
      registry: 'ghcr.io',
      repository: 'acme/app',
      identifier: DIGEST,
      resolvedImage: `ghcr.io/acme/app@${DIGEST}`,
      manifest: {},
      configData: {},
    });
    const data = await new RegistryCelImageDataPort(images).get(`ghcr.io/acme/app@${DIGEST}`);
    expect(data).toMatchObject({ digest: DIGEST, resolvedImage: `ghcr.io/acme/app@${DIGEST}` });
    expect(data).not.toHaveProperty('tag');
  });

  it('lets the registry failure through', async () => {
    const failing: ImageDataSource = {
      imageData: () => Promise.reject(new Error('manifest v9 not found in ghcr.io/acme/app')),
    };
    await expect(new RegistryCelImageDataPort(failing).get('ghcr.io/acme/app:v9')).rejects.toThrow(
      'manifest v9 not found',
    );
  });
});
