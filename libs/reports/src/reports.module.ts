/**
 * ReportsModule: the admission report pipeline (bounded queue, cap, idempotent writer), shared by
 * the admission controller (which submits) and the reports controller (which reuses the writer and
 * report builders).
 *
 *   ReportsModule.forRootAsync({
 *     inject: [KubeResources],
 *     useFactory: (resources) => ({ options: { queueSize: 1000, maxAdmissionReports: 10000 }, resources }),
 *   })
 *
 * Inject AdmissionReportQueue and call `submit(input)`; on shutdown, `drain(timeoutMs)`.
 */
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type FactoryProvider,
  type ModuleMetadata,
  type OnModuleDestroy,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import type { KubeResources } from '@edict/kube';
import { AdmissionReportQueue, breakerMetricsOf } from './admission-report-queue';
import { ReportBreaker } from './cap/report-breaker';
import { InformerReportCounter, type ReportCounter } from './cap/report-counter';
import { ReportsMetrics } from './metrics/reports-metrics';
import { SOURCE_ADMISSION } from './report/labels';
import { REPORT_COUNTER, REPORT_STORE, REPORTS_OPTIONS } from './reports.constants';
import {
  resolveReportsOptions,
  ReportsOptionsError,
  type ReportsModuleOptions,
  type ResolvedReportsOptions,
} from './reports.options';
import { AdmissionReportWriter } from './writer/admission-report-writer';
import { KubeReportStore, type ReportStore } from './writer/report-store';

/** Options plus the collaborators: the API client, or a store and counter (tests). */
export interface ReportsModuleConfig {
  readonly options?: Partial<ReportsModuleOptions>;
  readonly resources?: KubeResources;
  readonly store?: ReportStore;
  readonly counter?: ReportCounter;
}

export interface ReportsModuleAsyncConfig extends Pick<ModuleMetadata, 'imports'> {
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: (...args: never[]) => ReportsModuleConfig | Promise<ReportsModuleConfig>;
}

const REPORTS_CONFIG = Symbol('REPORTS_CONFIG');

function checked(config: ReportsModuleConfig): ReportsModuleConfig {
  if (!config) throw new ReportsOptionsError('Invalid ReportsModule config: config: required');
  if (!config.resources && (!config.store || !config.counter)) {
    throw new ReportsOptionsError(
      'Invalid ReportsModule config: resources: required unless both store and counter are given',
    );
  }
  return config;
}

/** Starts the informer-based counter with the module and stops it with it. */
@Injectable()
class CounterLifecycle implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(REPORT_COUNTER) private readonly counter: ReportCounter) {}

  onModuleInit(): void {
    if (this.counter instanceof InformerReportCounter) this.counter.start();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.counter instanceof InformerReportCounter) await this.counter.stop();
  }
}

const derived: Provider[] = [
  {
    provide: REPORTS_OPTIONS,
    inject: [REPORTS_CONFIG],
    useFactory: (config: ReportsModuleConfig) => resolveReportsOptions(config.options),
  },
  {
    provide: REPORT_STORE,
    inject: [REPORTS_CONFIG],
    useFactory: (config: ReportsModuleConfig) => config.store ?? new KubeReportStore(config.resources!),
  },
  {
    provide: REPORT_COUNTER,
    inject: [REPORTS_CONFIG, REPORTS_OPTIONS],
    useFactory: (config: ReportsModuleConfig, options: ResolvedReportsOptions) =>
      config.counter ??
      new InformerReportCounter(config.resources!, {
        source: SOURCE_ADMISSION,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
      }),
  },
  ReportsMetrics,
  {
    provide: AdmissionReportWriter,
    inject: [REPORT_STORE, REPORTS_OPTIONS],
    useFactory: (store: ReportStore, options: ResolvedReportsOptions) =>
      new AdmissionReportWriter(store, {
        attempts: options.writeAttempts,
        initialDelayMs: options.retryInitialDelayMs,
        maxDelayMs: options.retryMaxDelayMs,
      }),
  },
  {
    provide: ReportBreaker,
    inject: [REPORT_COUNTER, REPORTS_OPTIONS, ReportsMetrics],
    useFactory: (counter: ReportCounter, options: ResolvedReportsOptions, metrics: ReportsMetrics) =>
      new ReportBreaker(counter, options.maxAdmissionReports, breakerMetricsOf(metrics)),
  },
  CounterLifecycle,
  AdmissionReportQueue,
];

const exported = [
  AdmissionReportQueue,
  AdmissionReportWriter,
  ReportBreaker,
  ReportsMetrics,
  REPORTS_OPTIONS,
  REPORT_COUNTER,
];

@Module({})
export class ReportsModule {
  static forRoot(config: ReportsModuleConfig): DynamicModule {
    resolveReportsOptions(checked(config).options); // fail at registration, naming the bad field
    return {
      module: ReportsModule,
      providers: [{ provide: REPORTS_CONFIG, useValue: config }, ...derived],
      exports: exported,
    };
  }

  static forRootAsync(config: ReportsModuleAsyncConfig): DynamicModule {
    return {
      module: ReportsModule,
      imports: config.imports ?? [],
      providers: [
        {
          provide: REPORTS_CONFIG,
          inject: config.inject ?? [],
          useFactory: async (...args: never[]) => checked(await config.useFactory(...args)),
        },
        ...derived,
      ],
      exports: exported,
    };
  }
}
