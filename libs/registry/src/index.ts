// @edict/registry: Kyverno's imageRegistry context data from OCI registries, through @edict/egress.
export { RegistryClient, type ImageDataRequest } from './client/registry-client';
export type { OciAccess, OciClient, OciDescriptor, OciManifest, OciPlatform, OciReaderSurface } from './oci/oci-types';
export { fallbackTag } from './oci/oci-registry-client';
export { blockedCidrsAllowing, RegistryEgressError } from './registry-egress';
export { MANIFEST_ACCEPT, MEDIA_TYPES, DEFAULT_PLATFORM } from './client/manifest';
export {
  dockerConfigFromSecret,
  findRegistryAuth,
  parseDockerConfigJson,
  type DockerConfig,
  type MatchedAuth,
  type RegistryAuth,
} from './auth/docker-config';
export { checkCredentialProviders } from './auth/credential-providers';
export { parseAuthChallenge, type AuthChallenge } from './auth/challenge';
export {
  parseRegistryReference,
  DOCKER_HUB,
  DOCKER_HUB_API_HOST,
  type RegistryReference,
} from './reference/registry-reference';
export { ImageNotFoundError, RegistryAuthError, RegistryCredentialsError, RegistryError } from './registry-errors';
export {
  RegistryOptions,
  RegistryOptionsError,
  resolveRegistryOptions,
  type ResolvedRegistryOptions,
} from './registry.options';
