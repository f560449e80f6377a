// Test helpers for @edict/registry: an in-process OCI registry, the real local registry
// (Debian's docker-registry), small test images and a client allowed to reach 127.0.0.1.
export {
  FakeRegistry,
  FAKE_REGISTRY_SERVICE,
  type FakeImage,
  type FakePlatform,
  type FakeRegistryAuth,
  type FakeRegistryOptions,
  type PushedImage,
  type RecordedRequest,
} from './fake-registry';
export {
  DOCKER_REGISTRY_BINARY,
  LocalRegistryError,
  startLocalRegistry,
  type LocalRegistry,
  type LocalRegistryOptions,
} from './local-registry';
export { pushTestImage, type PushedTestImage, type TestImageOptions } from './test-image';
export { registryClientForTests, type TestRegistryClientOptions } from './test-client';
