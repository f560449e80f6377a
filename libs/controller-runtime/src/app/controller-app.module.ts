/**
 * The skeleton every Edict controller app is built from, configured by `forRoot(options)`:
 *  - ControllerCoreModule (global, so feature modules import only each other): the app's
 *    configuration under its own token, cluster access and leader election, with `policies` the
 *    policy cache (and CEL_POLICY_SOURCE, the CEL policies'), Kyverno's CRDs and the ConfigMap, with
 *    `webhookServer` the serving certificate;
 *  - /healthz and /readyz (Terminus) answering the app's readiness checks, /metrics its registries
 *    and the core metrics, as the `kyverno-metrics` ConfigMap (MetricsConfiguration) says;
 *  - for a webhook server, its periodic jobs (WebhookScheduler: certificate check, webhook monitor),
 *    which need one feature module to export the webhook configurations' WebhookMonitor;
 *  - the app's own feature modules.
 */
import {
  Module,
  type DynamicModule,
  type FactoryProvider,
  type InjectionToken,
  type ModuleMetadata,
  type Provider,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { TerminusModule, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { Registry } from 'prom-client';
import { ADMISSION_CONFIG_SOURCE, AdmissionConfigService, CelPolicyCache } from '@edict/policy';
import { CEL_POLICY_SOURCE } from '../cel-policies/cel-policy-source';
import type { ControllerBaseConfig } from '../config/controller-config';
import type { WebhookServerConfig } from '../config/webhook-server-config';
import { HealthController, READINESS_CHECKS } from '../health/health.controller';
import { PolicyReadiness } from '../health/policy-readiness';
import { CoreMetrics } from '../metrics/core-metrics';
import { HttpMetricsInterceptor } from '../metrics/http-metrics.interceptor';
import { loadMetricsConfiguration } from '../metrics/metrics-config-loader';
import { MetricsConfiguration } from '../metrics/metrics-configuration';
import { MetricsRefresher } from '../metrics/metrics-refresher';
import { METRIC_REGISTRIES, MetricsController } from '../metrics/metrics.controller';
import { clusterModules, policyModule } from '../modules/cluster-modules';
import { servingCertModule } from '../webhook-server/serving-cert-module';
import { WEBHOOK_SERVER_CONFIG, WebhookScheduler } from '../webhook-server/webhook-scheduler';
import { CustomResourceDefinitionsModule, KubeResources } from '@edict/kube';
import { TRACING } from '@edict/foundation';
import { TracingShutdown, tracingProvider } from '../tracing/tracing-provider';

/** A provider of `T` built from injected values (Nest's factory provider, its token given by the skeleton). */
export type AppFactory<T> = Omit<FactoryProvider<T>, 'provide'>;

export interface ControllerAppOptions<C extends ControllerBaseConfig = ControllerBaseConfig> {
  readonly config: C;
  /** The token the app's own providers inject `config` by. */
  readonly configToken: InjectionToken;
  /**
   * The policy cache (with the config's exception namespaces), Kyverno's CRDs, the configuration
   * ConfigMap (AdmissionConfigService, read from `config`) and PolicyReadiness.
   */
  readonly policies?: boolean;
  /** A webhook server: its serving certificate and scheduled jobs (the config's webhook server fields). */
  readonly webhookServer?: WebhookServerConfig;
  /** The app's feature modules. */
  readonly features: NonNullable<ModuleMetadata['imports']>;
  /** The checks /readyz answers, from what the core module and the features export. */
  readonly readiness: AppFactory<HealthIndicatorFunction[]>;
  /** The prom-client registries /metrics serves, from what the features export. */
  readonly metrics: AppFactory<Registry[]>;
  /** The controller's name after the install name (`admission-controller`): its traces' service name. */
  readonly component?: string;
}

@Module({})
export class ControllerCoreModule {
  static forRoot(options: ControllerAppOptions): DynamicModule {
    const { config } = options;
    const imports: DynamicModule[] = [TerminusModule.forRoot({ logger: false }), ...clusterModules(config)];
    const providers: Provider[] = [
      { provide: options.configToken, useValue: config },
      // The `kyverno-metrics` ConfigMap, read once at startup, and the metrics every controller exports.
      {
        provide: MetricsConfiguration,
        inject: [KubeResources],
        useFactory: (resources: KubeResources) =>
          loadMetricsConfiguration(resources, config.namespace, config.metricsConfigMapName),
      },
      // Every API server request counted (kyverno_client_queries_total), every event given up on
      // (kyverno_events_dropped_total).
      {
        provide: CoreMetrics,
        inject: [MetricsConfiguration, KubeResources],
        useFactory: (configuration: MetricsConfiguration, resources: KubeResources) => {
          const core = new CoreMetrics(configuration);
          resources.http.onRequest = (method, path, query) => core.recordClientQuery(method, path, query);
          resources.onEventDropped = () => core.recordEventDropped();
          return core;
        },
      },
      tracingProvider(config, options.component ?? 'controller'),
      TracingShutdown,
    ];
    const exported: Array<InjectionToken | DynamicModule> = [
      options.configToken,
      MetricsConfiguration,
      CoreMetrics,
      TRACING,
    ];
    if (options.policies) {
      imports.push(policyModule(config), CustomResourceDefinitionsModule.forRoot(config.watchTimeoutSeconds));
      providers.push(
        { provide: ADMISSION_CONFIG_SOURCE, useValue: config },
        AdmissionConfigService,
        PolicyReadiness,
        // Kyverno's CEL policies, from the policy module's CEL policy cache.
        { provide: CEL_POLICY_SOURCE, useExisting: CelPolicyCache },
      );
      exported.push(ADMISSION_CONFIG_SOURCE, AdmissionConfigService, PolicyReadiness, CEL_POLICY_SOURCE);
    }
    if (options.webhookServer) {
      imports.push(ScheduleModule.forRoot(), servingCertModule(options.webhookServer));
      providers.push({ provide: WEBHOOK_SERVER_CONFIG, useValue: options.webhookServer });
      exported.push(WEBHOOK_SERVER_CONFIG);
    }
    return {
      module: ControllerCoreModule,
      global: true,
      imports,
      providers,
      exports: [...imports, ...exported],
    };
  }
}

@Module({})
export class ControllerAppModule {
  static forRoot(options: ControllerAppOptions): DynamicModule {
    return {
      module: ControllerAppModule,
      imports: [ControllerCoreModule.forRoot(options), ...options.features],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: READINESS_CHECKS, ...options.readiness },
        { provide: METRIC_REGISTRIES, ...options.metrics },
        { provide: APP_INTERCEPTOR, useClass: HttpMetricsInterceptor },
        MetricsRefresher,
        ...(options.webhookServer ? [WebhookScheduler] : []),
      ],
    };
  }
}
