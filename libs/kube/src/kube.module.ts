/**
 * `KubeModule.forRoot(options)`: a `KubeConfig` (in-cluster, kubeconfig or auto), the typed
 * client-node APIs, our plain-JSON `KubeResources` and the `InformerFactory`. Global, so feature
 * modules (leader, certs, controllers) inject them without importing it again.
 */
import { type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import {
  AdmissionregistrationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
} from '@kubernetes/client-node';
import { TRACING, type Tracing } from '@edict/foundation';
import { validateKubeOptions, type KubeModuleOptions } from './config/kube-module-options';
import { loadKubeConfig } from './config/load-kube-config';
import { KubeHttpClient } from './http/kube-http-client';
import { KubeResources } from './http/kube-resources';
import { InformerFactory } from './informer/informer-factory';
import {
  ADMISSIONREGISTRATION_V1_API,
  COORDINATION_V1_API,
  CORE_V1_API,
  CUSTOM_OBJECTS_API,
  KUBE_CONFIG,
  KUBE_OPTIONS,
  KUBERNETES_OBJECT_API,
} from './tokens';

export interface KubeModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly useFactory: (...args: never[]) => Partial<KubeModuleOptions> | Promise<Partial<KubeModuleOptions>>;
  readonly inject?: FactoryProvider['inject'];
}

export class KubeModule {
  static forRoot(options: Partial<KubeModuleOptions> = {}): DynamicModule {
    const validated = validateKubeOptions(options); // fail at registration, naming the bad field
    return KubeModule.build([{ provide: KUBE_OPTIONS, useValue: validated }]);
  }

  static forRootAsync(options: KubeModuleAsyncOptions): DynamicModule {
    return KubeModule.build(
      [
        {
          provide: KUBE_OPTIONS,
          useFactory: async (...args: never[]) => validateKubeOptions(await options.useFactory(...args)),
          inject: options.inject ?? [],
        },
      ],
      options.imports,
    );
  }

  private static build(optionProviders: Provider[], imports: ModuleMetadata['imports'] = []): DynamicModule {
    const api = <T>(token: symbol, type: new (...args: never[]) => T): Provider => ({
      provide: token,
      useFactory: (config: KubeConfig) => config.makeApiClient(type as never),
      inject: [KUBE_CONFIG],
    });
    const providers: Provider[] = [
      ...optionProviders,
      { provide: KUBE_CONFIG, useFactory: (o: KubeModuleOptions) => loadKubeConfig(o), inject: [KUBE_OPTIONS] },
      { provide: KubeConfig, useExisting: KUBE_CONFIG },
      api(CORE_V1_API, CoreV1Api),
      api(COORDINATION_V1_API, CoordinationV1Api),
      api(ADMISSIONREGISTRATION_V1_API, AdmissionregistrationV1Api),
      api(CUSTOM_OBJECTS_API, CustomObjectsApi),
      {
        provide: KUBERNETES_OBJECT_API,
        useFactory: (config: KubeConfig) => KubernetesObjectApi.makeApiClient(config),
        inject: [KUBE_CONFIG],
      },
      {
        provide: KubeHttpClient,
        // The app's Tracing when it provides one: API calls made inside a span get their own.
        useFactory: (config: KubeConfig, tracing?: Tracing) => new KubeHttpClient(config, tracing ? { tracing } : {}),
        inject: [KUBE_CONFIG, { token: TRACING, optional: true }],
      },
      {
        provide: KubeResources,
        useFactory: (http: KubeHttpClient) => new KubeResources(http),
        inject: [KubeHttpClient],
      },
      InformerFactory,
    ];
    return {
      module: KubeModule,
      global: true,
      imports,
      providers,
      exports: [
        KUBE_OPTIONS,
        KUBE_CONFIG,
        KubeConfig,
        CORE_V1_API,
        COORDINATION_V1_API,
        ADMISSIONREGISTRATION_V1_API,
        CUSTOM_OBJECTS_API,
        KUBERNETES_OBJECT_API,
        KubeHttpClient,
        KubeResources,
        InformerFactory,
      ],
    };
  }
}
