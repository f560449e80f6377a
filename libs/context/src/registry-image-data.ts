/**
 * imageRegistry data from OCI registries (@edict/registry) through its own egress client with the
 * controller's block list, so a request cannot point the controller at loopback or metadata
 * addresses through an image name. Credentials as Kyverno picks them: an entry's
 * `imageRegistryCredentials.secrets` when it has credentials, else the controller's default pull
 * Secrets; cloud `providers` fail closed (Edict has no cloud identity). The credentials read from
 * Secrets and the OCI client built on them are remembered per set of Secrets and the Secret cache's
 * revision (bounded), so a warm review neither reads Secrets nor builds a client.
 */
import type { ImageRegistryCredentials, OciAccessRequest, OciReader } from '@edict/engine';
import { BoundedCache, type JsonObject } from '@edict/foundation';
import { EgressClient } from '@edict/egress';
import { blockedCidrsAllowing, checkCredentialProviders, RegistryClient, type DockerConfig } from '@edict/registry';
import type { TrustedRootSource } from '@edict/image-verify';
import type { ContextSettings } from './context-settings';
import type { ImageDataSource } from './image-data-source';
import type { PullSecretSource } from './pull-secret-cache';

export type RegistrySettings = Pick<
  ContextSettings,
  'egressBlockedCidrs' | 'apiCallTimeoutMs' | 'imagePullSecrets' | 'registryAllowedAddresses' | 'insecureRegistries'
>;

/** Sets of credentials remembered (each a parsed set of Secrets and its OCI client). */
const MAX_CREDENTIAL_SETS = 64;

interface Credentials {
  readonly dockerConfigs: DockerConfig[];
  /** The OCI clients built on them, by `allowInsecure`. */
  readonly oci: Map<boolean, OciReader>;
}

export class RegistryImageData implements ImageDataSource {
  private readonly egress: EgressClient;
  private readonly registry: RegistryClient;
  private readonly defaultSecrets: readonly string[];
  private credentials = new BoundedCache<Credentials>(MAX_CREDENTIAL_SETS, 4096);
  private credentialsRevision: number | undefined;

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
      dockerConfigs: this.credentialsOf(names).dockerConfigs,
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
    const allowInsecure = access.allowInsecure === true;
    const credentials = this.credentialsOf(names);
    let client = credentials.oci.get(allowInsecure);
    if (!client) {
      // The registry's descriptors type `platform['os.features']` readonly, image-verify's mutable:
      // the same shape, which image-verify only reads.
      client = this.registry.oci({ dockerConfigs: credentials.dockerConfigs, allowInsecure }) as unknown as OciReader;
      credentials.oci.set(allowInsecure, client);
    }
    return client;
  }

  /**
   * The docker configs of these Secrets, remembered while the Secret cache's revision stays the
   * same (a changed, added or removed Secret forgets them all). A Secret that cannot be read is an
   * error every time, never remembered.
   */
  private credentialsOf(names: readonly string[]): Credentials {
    const revision = this.secrets.revision?.();
    if (revision === undefined) return { dockerConfigs: this.secrets.dockerConfigs(names), oci: new Map() };
    if (revision !== this.credentialsRevision) {
      this.credentials = new BoundedCache<Credentials>(MAX_CREDENTIAL_SETS, 4096);
      this.credentialsRevision = revision;
    }
    return this.credentials.getOrCreate(JSON.stringify(names), () => ({
      dockerConfigs: this.secrets.dockerConfigs(names),
      oci: new Map(),
    }));
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
