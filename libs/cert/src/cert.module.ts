/**
 * CertModule: a self-signed CA and a serving certificate kept in two `kubernetes.io/tls` Secrets,
 * renewed by the leader, read by every replica.
 *
 *   CertModule.forRoot({ serviceName: 'edict', namespace: 'edict', kubeConfig, leaderGate })
 *
 * The app's scheduler calls `CertRenewer.reconcile()`; TLS servers follow `TlsMaterial`.
 */
import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { CertLifecycle } from './cert-lifecycle';
import {
  CERT_CLOCK,
  CERT_CORE_API,
  CERT_KUBE_CONFIG,
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
import { CoreV1SecretStore } from './secrets/core-v1-secret-store';
import type { SecretStore, SecretWatchSource } from './secrets/secret-store';

/** Options plus the infrastructure: a KubeConfig or a CoreV1Api (or, in tests, a SecretStore). */
export interface CertModuleConfig extends CertModuleOptions {
  /** Who may write the Secrets. Required: use ALWAYS_LEADER for a single replica. */
  readonly leaderGate: LeaderGate;
  readonly kubeConfig?: KubeConfig;
  readonly coreApi?: CoreV1Api;
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
  if (!config.secretStore && !config.coreApi && !config.kubeConfig) {
    throw new CertOptionsError('invalid CertModule options: kubeConfig or coreApi: one is required');
  }
  return config;
}

function pickOptions(config: CertModuleConfig): Partial<CertModuleOptions> {
  const {
    leaderGate: _g,
    kubeConfig: _k,
    coreApi: _c,
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
    provide: CERT_KUBE_CONFIG,
    inject: [CERT_CONFIG],
    useFactory: (config: CertModuleConfig) => config.kubeConfig ?? null,
  },
  {
    provide: CERT_CORE_API,
    inject: [CERT_CONFIG],
    useFactory: async (config: CertModuleConfig) => {
      if (config.coreApi) return config.coreApi;
      if (!config.kubeConfig) return null;
      const { CoreV1Api } = await import('@kubernetes/client-node');
      return config.kubeConfig.makeApiClient(CoreV1Api);
    },
  },
  {
    provide: CERT_SECRET_STORE,
    inject: [CERT_CONFIG, CERT_OPTIONS, CERT_CORE_API],
    useFactory: (config: CertModuleConfig, options: ResolvedCertOptions, api: CoreV1Api | null): SecretStore =>
      config.secretStore ?? new CoreV1SecretStore(api!, options.namespace),
  },
  {
    provide: CERT_SECRET_WATCH,
    inject: [CERT_CONFIG, CERT_OPTIONS],
    useFactory: (config: CertModuleConfig, options: ResolvedCertOptions): SecretWatchSource | null =>
      config.secretWatch ??
      (config.kubeConfig ? new KubeSecretWatch(config.kubeConfig, options.namespace, options.watchRetryMs) : null),
  },
  CertRenewer,
  TlsMaterial,
  CertLifecycle,
];

const exported = [CertRenewer, TlsMaterial, CertLifecycle, CERT_OPTIONS, CERT_LEADER_GATE, CERT_CORE_API];

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
