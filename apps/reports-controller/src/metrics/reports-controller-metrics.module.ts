/** The reports controller's metrics, shared by the aggregation and the background scans. */
import { Module } from '@nestjs/common';
import { ReportsControllerMetrics } from './reports-controller-metrics';

@Module({ providers: [ReportsControllerMetrics], exports: [ReportsControllerMetrics] })
export class ReportsControllerMetricsModule {}
