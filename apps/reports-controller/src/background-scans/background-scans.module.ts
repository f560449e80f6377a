/** The background scans (Kyverno's background scan controller): the leader scans the resources the background policies match. */
import { Module } from '@nestjs/common';
import { ScanEngine } from '../background/scan-engine';
import { ReportsControllerMetricsModule } from '../metrics/reports-controller-metrics.module';
import { BackgroundScanController } from './background-scan-controller';

@Module({ imports: [ReportsControllerMetricsModule], providers: [ScanEngine, BackgroundScanController] })
export class BackgroundScansModule {}
