import { afterEach, describe, expect, it } from 'vitest';
import { FakeRegistry } from '@edict/registry/testing';
import { loadControllerConfig } from '../config/controller-config';
import { RegistryImageData } from './registry-image-data';

describe('RegistryImageData', () => {
  let registry: FakeRegistry | undefined;
  let images: RegistryImageData | undefined;

  afterEach(async () => {
    images?.onModuleDestroy();
    await registry?.close();
  });

  it("keeps image lookups off the controller's blocked addresses: a registry on loopback is refused unasked", async () => {
    registry = await FakeRegistry.start();
    registry.pushImage('team/app', '1.0', { config: { config: { User: 'app' } } });
    images = new RegistryImageData(loadControllerConfig({}));
    await expect(images.imageData(`${registry.host}/team/app:1.0`)).rejects.toThrow(
      /127\.0\.0\.1.*blocked range 127\.0\.0\.0\/8/,
    );
    expect(registry.requests).toEqual([]);
  });
});
