/** The background scans (Kyverno's background scan controller): the leader scans the resources the background policies match. */
import { Module } from '@nestjs/common';
import { clusterEngineProvider } from '@edict/context';
import { ReportsControllerMetricsModule } from '../metrics/reports-controller-metrics.module';
import { NativePoliciesModule } from '../native-policies/native-policies.module';
import { BackgroundScanController } from './background-scan-controller';

@Module({
  imports: [ReportsControllerMetricsModule, NativePoliciesModule],
  providers: [clusterEngineProvider, BackgroundScanController],
})
export class BackgroundScansModule {}
