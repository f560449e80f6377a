/**
 * What follows an answered review, off the request path: admission reports (bounded queue, the
 * --maxAdmissionReports cap, idempotent writes), UpdateRequests for generate and mutate-existing
 * rules, and Events.
 */
import { Module } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { ReportsModule } from '@edict/reports';
import { ClusterStateModule } from '../cluster/cluster-state.module';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { AdmissionMetricsModule } from '../metrics/admission-metrics.module';
import { AfterAdmissionService } from './after-admission.service';
import { SynchronizeRequestsService } from './synchronize-requests.service';
import { UpdateRequestCount } from './update-request-count';

/** The admission report queue and its metrics. */
export const admissionReportsModule = ReportsModule.forRootAsync({
  inject: [CONTROLLER_CONFIG, KubeResources],
  useFactory: (config: ControllerConfig, resources: KubeResources) => ({
    options: {
      queueSize: config.reportQueueSize,
      maxAdmissionReports: config.maxAdmissionReports,
      watchTimeoutSeconds: config.watchTimeoutSeconds,
    },
    resources,
  }),
});

@Module({
  imports: [ClusterStateModule, AdmissionMetricsModule, admissionReportsModule],
  providers: [SynchronizeRequestsService, UpdateRequestCount, AfterAdmissionService],
  exports: [AfterAdmissionService, admissionReportsModule],
})
export class AfterAdmissionModule {}
