/**
 * CertModule: a self-signed CA and a serving certificate kept in two `kubernetes.io/tls` Secrets,
 * renewed by the leader, read by every replica.
 *
 *   CertModule.forRoot({ serviceName: 'edict', namespace: 'edict', resources, leaderGate })
 *
 * The app's scheduler calls `CertRenewer.reconcile()`; TLS servers follow `TlsMaterial`.
 */
import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeHttpClient, KubeResources } from '@edict/kube';
import { CertLifecycle } from './cert-lifecycle';
import {
  CERT_CLOCK,
  CERT_KUBE_RESOURCES,
  CERT_LEADER_GATE,
  CERT_OPTIONS,
  CERT_SECRET_STORE,
  CERT_SECRET_WATCH,
} from './cert.constants';
import { CertOptionsError, resolveCertOptions, type CertModuleOptions, type ResolvedCertOptions } from './cert.options';
import type { LeaderGate } from '@edict/leader';
import { SYSTEM_CLOCK, type CertClock } from './cert-clock';
import { KubeSecretWatch } from './material/kube-secret-watch';
import { TlsMaterial } from './material/tls-material';
import { CertRenewer } from './renewal/cert-renewer';
import { KubeSecretStore } from './secrets/kube-secret-store';
import type { SecretStore, SecretWatchSource } from './secrets/secret-store';

/** Options plus the infrastructure: libs/kube's KubeResources or a KubeConfig (or, in tests, a SecretStore). */
export interface CertModuleConfig extends CertModuleOptions {
  /** Who may write the Secrets. Required: use ALWAYS_LEADER for a single replica. */
  readonly leaderGate: LeaderGate;
  /** libs/kube's REST client for the Secrets and their watch (the app's KubeResources). */
  readonly resources?: KubeResources;
  /** Builds a KubeResources of its own from it, when `resources` is not given. */
  readonly kubeConfig?: KubeConfig;
  readonly secretStore?: SecretStore;
  readonly secretWatch?: SecretWatchSource;
  readonly clock?: CertClock;
}

export interface CertModuleAsyncConfig extends Pick<ModuleMetadata, 'imports'> {
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: (...args: never[]) => CertModuleConfig | Promise<CertModuleConfig>;
}

const CERT_CONFIG = Symbol('CERT_CONFIG');

function checked(config: CertModuleConfig): CertModuleConfig {
  if (!config || typeof config.leaderGate?.isLeader !== 'function') {
    throw new CertOptionsError(
      'invalid CertModule options: leaderGate: required (an object with isLeader(); ALWAYS_LEADER for one replica)',
    );
  }
  if (!config.secretStore && !config.resources && !config.kubeConfig) {
    throw new CertOptionsError('invalid CertModule options: kubeConfig or resources: one is required');
  }
  return config;
}

function pickOptions(config: CertModuleConfig): Partial<CertModuleOptions> {
  const {
    leaderGate: _g,
    kubeConfig: _k,
    resources: _r,
    secretStore: _s,
    secretWatch: _w,
    clock: _t,
    ...options
  } = config;
  return options;
}

const derived: Provider[] = [
  {
    provide: CERT_OPTIONS,
    inject: [CERT_CONFIG],
    useFactory: (config: CertModuleConfig) => resolveCertOptions(pickOptions(config)),
  },
  { provide: CERT_LEADER_GATE, inject: [CERT_CONFIG], useFactory: (config: CertModuleConfig) => config.leaderGate },
  {
    provide: CERT_CLOCK,
    inject: [CERT_CONFIG],
    useFactory: (config: CertModuleConfig) => config.clock ?? SYSTEM_CLOCK,
  },
  {
    provide: CERT_KUBE_RESOURCES,
    inject: [CERT_CONFIG],
    useFactory: (config: CertModuleConfig): KubeResources | null =>
      config.resources ?? (config.kubeConfig ? new KubeResources(new KubeHttpClient(config.kubeConfig)) : null),
  },
  {
    provide: CERT_SECRET_STORE,
    inject: [CERT_CONFIG, CERT_OPTIONS, CERT_KUBE_RESOURCES],
    useFactory: (
      config: CertModuleConfig,
      options: ResolvedCertOptions,
      resources: KubeResources | null,
    ): SecretStore => config.secretStore ?? new KubeSecretStore(resources!, options.namespace),
  },
  {
    provide: CERT_SECRET_WATCH,
    inject: [CERT_CONFIG, CERT_OPTIONS, CERT_KUBE_RESOURCES],
    useFactory: (
      config: CertModuleConfig,
      options: ResolvedCertOptions,
      resources: KubeResources | null,
    ): SecretWatchSource | null =>
      config.secretWatch ??
      (resources ? new KubeSecretWatch(resources, options.namespace, options.watchRetryMs) : null),
  },
  CertRenewer,
  TlsMaterial,
  CertLifecycle,
];

const exported = [CertRenewer, TlsMaterial, CertLifecycle, CERT_OPTIONS, CERT_LEADER_GATE, CERT_KUBE_RESOURCES];

@Module({})
export class CertModule {
  static forRoot(config: CertModuleConfig): DynamicModule {
    // Validate at registration, so a bad value fails where the module is declared.
    resolveCertOptions(pickOptions(checked(config)));
    return {
      module: CertModule,
      providers: [{ provide: CERT_CONFIG, useValue: config }, ...derived],
      exports: exported,
    };
  }

  static forRootAsync(config: CertModuleAsyncConfig): DynamicModule {
    return {
      module: CertModule,
      imports: config.imports ?? [],
      providers: [
        {
          provide: CERT_CONFIG,
          inject: config.inject ?? [],
          useFactory: async (...args: never[]) => checked(await config.useFactory(...args)),
        },
        ...derived,
      ],
      exports: exported,
    };
  }
}
