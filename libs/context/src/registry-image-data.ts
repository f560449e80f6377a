/**
 * imageRegistry data from OCI registries (@edict/registry) through its own egress client with the
 * controller's block list, so a request cannot point the controller at loopback or metadata
 * addresses through an image name. Credentials as Kyverno picks them: an entry's
 * `imageRegistryCredentials.secrets` when it has credentials, else the controller's default pull
 * Secrets; cloud `providers` fail closed (Edict has no cloud identity).
 */
import type { ImageRegistryCredentials } from '@edict/engine';
import type { JsonObject } from '@edict/foundation';
import { EgressClient } from '@edict/egress';
import { blockedCidrsAllowing, checkCredentialProviders, RegistryClient } from '@edict/registry';
import type { ContextSettings } from './context-settings';
import type { ImageDataSource } from './image-data-source';
import type { PullSecretSource } from './pull-secret-cache';

export type RegistrySettings = Pick<
  ContextSettings,
  'egressBlockedCidrs' | 'apiCallTimeoutMs' | 'imagePullSecrets' | 'registryAllowedAddresses' | 'insecureRegistries'
>;

export class RegistryImageData implements ImageDataSource {
  private readonly egress: EgressClient;
  private readonly registry: RegistryClient;
  private readonly defaultSecrets: readonly string[];

  constructor(
    settings: RegistrySettings,
    private readonly secrets: PullSecretSource,
  ) {
    this.egress = new EgressClient({
      // The registry's own block list: the controller's, less the addresses allowed for registries only.
      blockedCidrs: blockedCidrsAllowing(settings.egressBlockedCidrs, settings.registryAllowedAddresses ?? []),
      timeoutMs: settings.apiCallTimeoutMs,
    });
    this.registry = new RegistryClient(this.egress, {
      timeoutMs: settings.apiCallTimeoutMs,
      insecureRegistries: [...(settings.insecureRegistries ?? [])],
    });
    this.defaultSecrets = settings.imagePullSecrets;
  }

  async imageData(reference: string, credentials?: ImageRegistryCredentials): Promise<JsonObject> {
    checkCredentialProviders(credentials?.providers);
    const names = credentials ? (credentials.secrets ?? []) : this.defaultSecrets;
    return this.registry.imageData(reference, {
      dockerConfigs: this.secrets.dockerConfigs(names),
      allowInsecure: credentials?.allowInsecureRegistry === true,
    });
  }

  /** Ends the egress client's connections. */
  close(): void {
    this.egress.close();
  }
}
