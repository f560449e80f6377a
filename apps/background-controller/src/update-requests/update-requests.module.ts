/**
 * The background controller's work: UpdateRequests processed by the leader (generate and
 * mutate-existing rules through the engine with the cluster's loaders, Events, metrics), and the
 * policy triggers that create them when a policy or its rules change.
 */
import { Module } from '@nestjs/common';
import { clusterEngineProvider } from '@edict/context';
import { BackgroundEventRecorders } from '../events/background-event-recorders';
import { BackgroundMetrics } from '../metrics/background-metrics';
import { MutatingPolicyTriggerController } from '../mutate-existing/mutating-policy-trigger-controller';
import { GpolSyncController } from '../gpol-sync/gpol-sync-controller';
import { PolicyTriggerController } from '../policy-triggers/policy-trigger-controller';
import { UpdateRequestController } from './update-request-controller';
import { GpolExistingController } from '../generate/gpol-existing-controller';

@Module({
  providers: [
    clusterEngineProvider,
    BackgroundEventRecorders,
    BackgroundMetrics,
    UpdateRequestController,
    PolicyTriggerController,
    MutatingPolicyTriggerController,
    GpolExistingController,
    GpolSyncController,
  ],
  exports: [BackgroundMetrics],
})
export class UpdateRequestsModule {}
