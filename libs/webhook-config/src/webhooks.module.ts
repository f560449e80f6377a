/**
 * WebhooksModule: the webhook controller. Builds the Validating/MutatingWebhookConfigurations from
 * the policy cache (or publishes a fixed set: `desired`), keeps them reconciled on the leader, and
 * offers the monitor and the removal.
 *
 *   WebhooksModule.forRootAsync({
 *     inject: [PolicyCache, TlsMaterial, KubeResources, LeaderService],
 *     useFactory: (policies, tls, resources, leader) => ({
 *       options: { namespace: 'edict', deploymentName: 'edict-admission-controller' },
 *       policies, caBundle: tls, resources, leaderGate: leaderGateOf(leader),
 *     }),
 *   })
 *
 * The app's scheduler calls `WebhookMonitor.check()` every WEBHOOK_MONITOR_INTERVAL_MS, and on
 * graceful shutdown `WebhookRemoval.removeIfScaledToZero()`.
 */
import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { type KubeResources, DiscoveryResolver, type DiscoverySource } from '@edict/kube';
import type { LeaderGate } from '@edict/leader';
import { KubeWebhookConfigStore } from './reconcile/kube-webhook-store';
import { PolicyWebhooks } from './reconcile/policy-webhooks';
import type {
  CaBundleSource,
  CelPolicySource,
  DesiredWebhooks,
  PolicySource,
  ServedTypesSource,
  WebhookConfigStore,
  WebhookSettingsSource,
} from './reconcile/ports';
import { WebhookMonitor } from './reconcile/webhook-monitor';
import { WebhookReconciler } from './reconcile/webhook-reconciler';
import { WebhookRemoval } from './reconcile/webhook-removal';
import {
  WEBHOOK_CA_SOURCE,
  WEBHOOK_CONFIG_STORE,
  WEBHOOK_DESIRED,
  WEBHOOK_DISCOVERY,
  WEBHOOK_KUBE_RESOURCES,
  WEBHOOK_LEADER_GATE,
  WEBHOOK_OPTIONS,
  WEBHOOK_POLICY_SOURCE,
} from './webhooks.constants';
import {
  resolveWebhookOptions,
  WebhookOptionsError,
  type ResolvedWebhookOptions,
  type WebhookModuleOptions,
} from './webhooks.options';

/** Options plus the collaborators (fakes or the real PolicyCache, TlsMaterial, KubeResources, LeaderService). */
export interface WebhooksModuleConfig {
  readonly options?: Partial<WebhookModuleOptions>;
  /** The policies the configurations follow; required unless `desired` is given. */
  readonly policies?: PolicySource;
  /** The compiled ValidatingPolicies (CelPolicyCache): their `vpol` webhooks are published too. */
  readonly celPolicies?: CelPolicySource;
  /** What to publish instead of the policies' configurations (a fixed set: FixedWebhooks). */
  readonly desired?: DesiredWebhooks;
  readonly caBundle: CaBundleSource;
  /** Writes configurations, reads discovery and the Deployment (unless the overrides below are given). */
  readonly resources?: KubeResources;
  /** Who may write. Required: `leaderGateOf(leaderService)`, or ALWAYS_LEADER for one replica. */
  readonly leaderGate: LeaderGate;
  readonly store?: WebhookConfigStore;
  readonly discovery?: DiscoverySource;
  /** Changes of the served types (CRDs); without it, kinds are resolved again only on other triggers. */
  readonly servedTypes?: ServedTypesSource;
  /** The Kyverno-format ConfigMap's webhook keys (AdmissionConfigService); without it, Edict's defaults. */
  readonly settings?: WebhookSettingsSource;
}

export interface WebhooksModuleAsyncConfig extends Pick<ModuleMetadata, 'imports'> {
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: (...args: never[]) => WebhooksModuleConfig | Promise<WebhooksModuleConfig>;
}

const WEBHOOK_CONFIG = Symbol('WEBHOOK_CONFIG');

function checked(config: WebhooksModuleConfig): WebhooksModuleConfig {
  const missing = (field: string, what: string) =>
    new WebhookOptionsError(`Invalid WebhooksModule config: ${field}: ${what}`);
  if (!config) throw missing('config', 'required');
  if (typeof config.leaderGate?.isLeader !== 'function')
    throw missing('leaderGate', 'required (an object with isLeader())');
  if (!config.desired && typeof config.policies?.policies !== 'function')
    throw missing('policies', 'required (the PolicyCache) unless desired is given');
  if (typeof config.caBundle?.current !== 'function') throw missing('caBundle', 'required (the TlsMaterial)');
  if (!config.resources && (!config.store || (!config.desired && !config.discovery))) {
    throw missing('resources', 'required unless both store and discovery are given');
  }
  return config;
}

const derived: Provider[] = [
  {
    provide: WEBHOOK_OPTIONS,
    inject: [WEBHOOK_CONFIG],
    useFactory: (config: WebhooksModuleConfig) => resolveWebhookOptions(config.options),
  },
  {
    provide: WEBHOOK_POLICY_SOURCE,
    inject: [WEBHOOK_CONFIG],
    useFactory: (c: WebhooksModuleConfig) => c.policies ?? null,
  },
  { provide: WEBHOOK_CA_SOURCE, inject: [WEBHOOK_CONFIG], useFactory: (c: WebhooksModuleConfig) => c.caBundle },
  { provide: WEBHOOK_LEADER_GATE, inject: [WEBHOOK_CONFIG], useFactory: (c: WebhooksModuleConfig) => c.leaderGate },
  {
    provide: WEBHOOK_KUBE_RESOURCES,
    inject: [WEBHOOK_CONFIG],
    useFactory: (c: WebhooksModuleConfig) => c.resources ?? null,
  },
  {
    provide: WEBHOOK_CONFIG_STORE,
    inject: [WEBHOOK_CONFIG],
    useFactory: (c: WebhooksModuleConfig) => c.store ?? new KubeWebhookConfigStore(c.resources!),
  },
  {
    provide: WEBHOOK_DISCOVERY,
    inject: [WEBHOOK_CONFIG, WEBHOOK_OPTIONS],
    useFactory: (c: WebhooksModuleConfig, o: ResolvedWebhookOptions) =>
      c.discovery ?? (c.resources ? new DiscoveryResolver(c.resources.http, o.discoveryCacheMs) : null),
  },
  {
    provide: WEBHOOK_DESIRED,
    inject: [WEBHOOK_CONFIG, WEBHOOK_OPTIONS, WEBHOOK_DISCOVERY],
    useFactory: (c: WebhooksModuleConfig, o: ResolvedWebhookOptions, discovery: DiscoverySource) =>
      c.desired ?? new PolicyWebhooks(o, c.policies!, discovery, c.servedTypes, c.celPolicies, c.settings),
  },
  WebhookReconciler,
  WebhookMonitor,
  WebhookRemoval,
];

const exported = [WebhookReconciler, WebhookMonitor, WebhookRemoval, WEBHOOK_OPTIONS];

@Module({})
export class WebhooksModule {
  static forRoot(config: WebhooksModuleConfig): DynamicModule {
    resolveWebhookOptions(checked(config).options); // fail at registration, naming the bad field
    return {
      module: WebhooksModule,
      providers: [{ provide: WEBHOOK_CONFIG, useValue: config }, ...derived],
      exports: exported,
    };
  }

  static forRootAsync(config: WebhooksModuleAsyncConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: config.imports ?? [],
      providers: [
        {
          provide: WEBHOOK_CONFIG,
          inject: config.inject ?? [],
          useFactory: async (...args: never[]) => checked(await config.useFactory(...args)),
        },
        ...derived,
      ],
      exports: exported,
    };
  }
}
