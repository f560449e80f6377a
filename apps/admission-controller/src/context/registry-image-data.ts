/**
 * imageRegistry data from OCI registries (@edict/registry) through its own egress client with the
 * controller's block list, so a request cannot point the controller at loopback or metadata
 * addresses through an image name. Anonymous pulls only for now: the entry's
 * `imageRegistryCredentials` do not reach the loaders.
 */
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { JsonObject } from '@edict/engine';
import { EgressClient } from '@edict/egress';
import { RegistryClient } from '@edict/registry';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ImageDataSource } from './image-data-source';

@Injectable()
export class RegistryImageData implements ImageDataSource, OnModuleDestroy {
  private readonly egress: EgressClient;
  private readonly registry: RegistryClient;

  constructor(@Inject(CONTROLLER_CONFIG) config: ControllerConfig) {
    this.egress = new EgressClient({ blockedCidrs: config.egressBlockedCidrs, timeoutMs: config.apiCallTimeoutMs });
    this.registry = new RegistryClient(this.egress, { timeoutMs: config.apiCallTimeoutMs });
  }

  imageData(reference: string): Promise<JsonObject> {
    return this.registry.imageData(reference);
  }

  onModuleDestroy(): void {
    this.egress.close();
  }
}
