/** The aggregation: the leader merges the admission reports into PolicyReports. */
import { Module } from '@nestjs/common';
import { ReportsControllerMetricsModule } from '../metrics/reports-controller-metrics.module';
import { AggregationController } from './aggregation-controller';

@Module({ imports: [ReportsControllerMetricsModule], providers: [AggregationController] })
export class AggregationModule {}
