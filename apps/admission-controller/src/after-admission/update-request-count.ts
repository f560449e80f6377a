/**
 * How many UpdateRequests exist in the controller's namespace, for the `updateRequestThreshold`
 * back pressure and the `kyverno_updaterequest_total` gauge (Kyverno's admission controller
 * counts them too). An informer that keeps only names, so a backlog of large requests costs
 * little memory and no API call per admission.
 */
import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { InformerFactory, InformerService, type Informer } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { AdmissionMetrics } from '../metrics/admission-metrics';

@Injectable()
export class UpdateRequestCount extends InformerService {
  private readonly informer: Informer<KubeObject>;

  constructor(
    @Inject(CONTROLLER_CONFIG) settings: ControllerConfig,
    informers: InformerFactory,
    metrics: AdmissionMetrics,
  ) {
    super(informers, settings.watchTimeoutSeconds);
    this.informer = this.watch<KubeObject>({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      namespace: settings.namespace,
      metadataOnly: true,
    });
    const read = () => this.current();
    // Kyverno's observable gauge: no sample while the count is unknown.
    new Gauge({
      name: 'kyverno_updaterequest_total',
      help: 'The current number of UpdateRequests in the cluster.',
      labelNames: ['resource_namespace'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        const count = read();
        if (count !== undefined) this.set({ resource_namespace: settings.namespace }, count);
      },
    });
  }

  /** UpdateRequests now; undefined until the informer has listed them once. */
  current(): number | undefined {
    const stats = this.informer.stats();
    return stats.synced ? stats.size : undefined;
  }
}
