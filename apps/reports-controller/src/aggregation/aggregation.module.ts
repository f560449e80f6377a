/** The aggregation: the leader merges the admission reports into PolicyReports. */
import { Module } from '@nestjs/common';
import { ReportsControllerMetricsModule } from '../metrics/reports-controller-metrics.module';
import { NativePoliciesModule } from '../native-policies/native-policies.module';
import { AggregationController } from './aggregation-controller';

@Module({ imports: [ReportsControllerMetricsModule, NativePoliciesModule], providers: [AggregationController] })
export class AggregationModule {}
