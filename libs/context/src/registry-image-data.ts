/**
 * imageRegistry data from OCI registries (@edict/registry) through its own egress client with the
 * controller's block list, so a request cannot point the controller at loopback or metadata
 * addresses through an image name. Credentials as Kyverno picks them: an entry's
 * `imageRegistryCredentials.secrets` when it has credentials, else the controller's default pull
 * Secrets; cloud `providers` fail closed (Edict has no cloud identity).
 */
import type { ImageRegistryCredentials, OciAccessRequest, OciReader } from '@edict/engine';
import type { JsonObject } from '@edict/foundation';
import { EgressClient } from '@edict/egress';
import { blockedCidrsAllowing, checkCredentialProviders, RegistryClient } from '@edict/registry';
import type { TrustedRootSource } from '@edict/image-verify';
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
    /** Sigstore's trusted root from the TUF settings (TufTrustedRootProvider); none: entries bring their own. */
    private readonly trustedRoots?: { source(): Promise<TrustedRootSource | undefined> },
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

  /**
   * The OCI reader verifyImages rules read signatures and attestations with: the same egress guard
   * and caps as imageData, credentials picked the same way, cloud providers refused.
   */
  oci(access: OciAccessRequest): OciReader {
    checkCredentialProviders(access.providers ? [...access.providers] : undefined);
    const names = access.secrets ?? this.defaultSecrets;
    const client = this.registry.oci({
      dockerConfigs: this.secrets.dockerConfigs(names),
      allowInsecure: access.allowInsecure === true,
    });
    // The registry's descriptors type `platform['os.features']` readonly, image-verify's mutable:
    // the same shape, which image-verify only reads.
    return client as unknown as OciReader;
  }

  /** The configured Sigstore trusted root, read (and refreshed) by the provider; undefined when none. */
  trustedRoot(): Promise<TrustedRootSource | undefined> {
    return this.trustedRoots ? this.trustedRoots.source() : Promise.resolve(undefined);
  }

  /** Ends the egress client's connections. */
  close(): void {
    this.egress.close();
  }
}
