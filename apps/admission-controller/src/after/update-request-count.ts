/**
 * How many UpdateRequests exist in the controller's namespace, for the `updateRequestThreshold`
 * back pressure and the `kyverno_updaterequest_total` gauge (Kyverno's admission controller
 * counts them too). An informer that keeps only names, so a backlog of large requests costs
 * little memory and no API call per admission.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Informer, KubeResources, metadataOnly, resourceListWatch, type KubeObject } from '@edict/kube';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';

@Injectable()
export class UpdateRequestCount implements OnModuleInit, OnModuleDestroy {
  private readonly informer: Informer<KubeObject>;
  private readonly logger = new Logger('UpdateRequestCount');

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, resources: KubeResources) {
    this.informer = new Informer<KubeObject>(
      metadataOnly(
        resourceListWatch<KubeObject>(resources, {
          apiVersion: 'kyverno.io/v2',
          kind: 'UpdateRequest',
          namespace: settings.namespace,
          watchTimeoutSeconds: settings.watchTimeoutSeconds,
        }),
      ),
      {
        name: `kyverno.io/v2/UpdateRequest counter in ${settings.namespace}`,
        logger: { warn: (message) => this.logger.warn(message) },
      },
    );
  }

  onModuleInit(): void {
    this.informer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.informer.stop();
  }

  /** UpdateRequests now; undefined until the informer has listed them once. */
  current(): number | undefined {
    const stats = this.informer.stats();
    return stats.synced ? stats.size : undefined;
  }
}
