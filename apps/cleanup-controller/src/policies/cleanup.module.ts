/**
 * The cleanup runs, on the leader: cleanup policies on their schedules (with their context
 * loaders) and the TTL label, with their Events and metrics.
 */
import { Module } from '@nestjs/common';
import { CleanupEvents } from '../events/cleanup-events';
import { CleanupMetrics } from '../metrics/cleanup-metrics';
import { TtlController } from '../ttl/ttl-controller';
import { CleanupContextLoaders } from './cleanup-context-loaders';
import { CleanupPolicyController } from './cleanup-policy-controller';

@Module({
  providers: [CleanupMetrics, CleanupEvents, CleanupContextLoaders, CleanupPolicyController, TtlController],
  exports: [CleanupMetrics],
})
export class CleanupModule {}
