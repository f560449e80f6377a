/**
 * The cleanup runs, on the leader: cleanup policies and DeletingPolicies on their schedules (with
 * their context loaders and CEL libraries) and the TTL label, with their Events and metrics.
 */
import { Module } from '@nestjs/common';
import { CleanupEvents } from '../events/cleanup-events';
import { CleanupMetrics } from '../metrics/cleanup-metrics';
import { TtlController } from '../ttl/ttl-controller';
import { CleanupContextLoaders } from './cleanup-context-loaders';
import { CleanupPolicyController } from './cleanup-policy-controller';
import { DeletingPolicyController } from '../deleting/deleting-policy-controller';

@Module({
  providers: [
    CleanupMetrics,
    CleanupEvents,
    CleanupContextLoaders,
    CleanupPolicyController,
    DeletingPolicyController,
    TtlController,
  ],
  exports: [CleanupMetrics],
})
export class CleanupModule {}
