/**
 * imageRegistry data from OCI registries (@edict/registry) through its own egress client with the
 * controller's block list, so a request cannot point the controller at loopback or metadata
 * addresses through an image name. Credentials as Kyverno picks them: an entry's
 * `imageRegistryCredentials.secrets` when it has credentials, else the controller's default pull
 * Secrets; cloud `providers` fail closed (Edict has no cloud identity).
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ImageRegistryCredentials } from '@edict/engine';
import type { JsonObject } from '@edict/foundation';
import { EgressClient } from '@edict/egress';
import { checkCredentialProviders, RegistryClient } from '@edict/registry';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ImageDataSource } from '@edict/context';
import { PullSecretCache, type PullSecretSource } from './pull-secret-cache';

@Injectable()
export class RegistryImageData implements ImageDataSource, OnModuleDestroy {
  private readonly egress: EgressClient;
  private readonly registry: RegistryClient;
  private readonly defaultSecrets: readonly string[];

  constructor(
    @Inject(CONTROLLER_CONFIG) config: ControllerConfig,
    @Inject(PullSecretCache) private readonly secrets: PullSecretSource,
  ) {
    this.egress = new EgressClient({ blockedCidrs: config.egressBlockedCidrs, timeoutMs: config.apiCallTimeoutMs });
    this.registry = new RegistryClient(this.egress, { timeoutMs: config.apiCallTimeoutMs });
    this.defaultSecrets = config.imagePullSecrets;
  }

  async imageData(reference: string, credentials?: ImageRegistryCredentials): Promise<JsonObject> {
    checkCredentialProviders(credentials?.providers);
    const names = credentials ? (credentials.secrets ?? []) : this.defaultSecrets;
    return this.registry.imageData(reference, {
      dockerConfigs: this.secrets.dockerConfigs(names),
      allowInsecure: credentials?.allowInsecureRegistry === true,
    });
  }

  onModuleDestroy(): void {
    this.egress.close();
  }
}
