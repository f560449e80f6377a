// Test helpers for @edict/registry: an in-process OCI registry.
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
