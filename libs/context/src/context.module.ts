/**
 * Context loading as Nest providers, the one file of @edict/context that knows Nest (the loaders
 * themselves are plain classes). `ContextModule.forRoot` gives every controller that evaluates
 * policies the same context: its apiCall callers, its GlobalContextEntry store (informer and
 * refresh, as Kyverno runs its global context controller in each), its pull Secret cache and
 * registry image data; with `admission`, also the ConfigMap cache and the loaders with fair shares
 * the webhooks use. `clusterEngineProvider` gives the background and reports controllers their
 * engine over that context.
 */
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Logger,
  Module,
  type DynamicModule,
  type OnModuleDestroy,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { EventRecorder, InformerFactory, KubeEventSink, KubeResources, CustomResourceDefinitions } from '@edict/kube';
import { TRACING, type Tracing } from '@edict/foundation';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import { ClusterContextLoaders } from './cluster-context-loaders';
import { ClusterEngine } from './cluster-engine';
import { ConfigMapCache } from './configmap-cache';
import { ContextApiCallers } from './context-api-callers';
import type { ContextSettings } from './context-settings';
import { FairContextLoads, type ContextLoadLimits } from './fair-context-loads';
import { GLOBAL_CONTEXT_EVENT_SOURCE, GlobalContextEntries } from './global-context-entries';
import { ClusterKyvernoCelPorts } from './kyverno-cel-ports';
import { ClusterImagePolicyPorts } from './cluster-image-policy-ports';
import { IMAGE_DATA_SOURCE, type ImageDataSource } from './image-data-source';
import { PullSecretCache } from './pull-secret-cache';
import { RegistryImageData } from './registry-image-data';
import { trustedRootProviderFor, type TufTrustedRootProvider } from './tuf-trusted-root-provider';

export interface ContextModuleOptions {
  /** The admission controller's loaders: ConfigMaps from an informer cache, network loads in fair shares. */
  readonly admission?: ContextLoadLimits;
}

/** The global context controller's Warning events (Kyverno's source `globalcontext-controller`), drained on shutdown. */
class GlobalContextEvents implements OnModuleDestroy {
  private readonly logger = new Logger('GlobalContextEvents');
  readonly recorder: EventRecorder;

  constructor(resources: KubeResources) {
    this.recorder = new EventRecorder(new KubeEventSink(resources), {
      reportingController: GLOBAL_CONTEXT_EVENT_SOURCE,
      reportingInstance: `${GLOBAL_CONTEXT_EVENT_SOURCE}-${hostname()}`,
      onError: (error, event) =>
        this.logger.warn(
          `event ${event.reason} on GlobalContextEntry ${event.regarding.name}: ${(error as Error).message}`,
        ),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.recorder.stop(EVENT_DRAIN_MS);
  }
}

const EVENT_DRAIN_MS = 2_000;

/** Starts the context informers with the module and stops the global context sources and registry client with it. */
class ContextLifecycle implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly caches: readonly { start(): void }[],
    private readonly globalContext: GlobalContextEntries,
    private readonly images: RegistryImageData,
  ) {}

  onModuleInit(): void {
    for (const cache of [...this.caches, this.globalContext]) cache.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.images.close();
    await this.globalContext.stop();
  }
}

@Module({})
export class ContextModule {
  static forRoot(settings: ContextSettings, options: ContextModuleOptions = {}): DynamicModule {
    const shared: Provider[] = [
      {
        provide: ContextApiCallers,
        inject: [KubeResources],
        useFactory: (resources: KubeResources) => new ContextApiCallers(settings, resources),
      },
      {
        provide: GlobalContextEvents,
        inject: [KubeResources],
        useFactory: (resources: KubeResources) => new GlobalContextEvents(resources),
      },
      {
        provide: GlobalContextEntries,
        inject: [KubeResources, InformerFactory, ContextApiCallers, GlobalContextEvents],
        useFactory: (
          resources: KubeResources,
          informers: InformerFactory,
          callers: ContextApiCallers,
          events: GlobalContextEvents,
        ) => {
          const logger = new Logger('GlobalContext');
          return new GlobalContextEntries(settings, {
            resources,
            informers,
            callers,
            logger: { warn: (message) => logger.warn(message) },
            // As Kyverno: the admission controller writes the entries' status, the others only read.
            updateStatus: options.admission !== undefined,
            // As Kyverno, every controller that loads the entries reports their failures.
            recordEvent: (event) => void events.recorder.record(event),
            ...(settings.maxGlobalContextEntries ? { maxEntries: settings.maxGlobalContextEntries } : {}),
          });
        },
      },
      {
        provide: PullSecretCache,
        inject: [InformerFactory],
        useFactory: (informers: InformerFactory) => new PullSecretCache(settings, informers),
      },
      {
        provide: RegistryImageData,
        inject: [PullSecretCache],
        useFactory: (secrets: PullSecretCache) =>
          new RegistryImageData(settings, secrets, trustedRootProvider(settings)),
      },
      { provide: IMAGE_DATA_SOURCE, useExisting: RegistryImageData },
      {
        provide: ClusterKyvernoCelPorts,
        inject: [KubeResources, ContextApiCallers, GlobalContextEntries, IMAGE_DATA_SOURCE],
        useFactory: (
          resources: KubeResources,
          callers: ContextApiCallers,
          globalContext: GlobalContextEntries,
          images: ImageDataSource,
        ) => new ClusterKyvernoCelPorts(resources, callers, globalContext.store, images),
      },
      {
        provide: ClusterImagePolicyPorts,
        inject: [IMAGE_DATA_SOURCE],
        useFactory: (images: ImageDataSource) => new ClusterImagePolicyPorts(images, settings.namespace),
      },
    ];
    const admission: Provider[] = options.admission
      ? [admissionConfigMaps(settings), admissionLoaders(options.admission)]
      : [];
    const lifecycle: Provider = {
      provide: ContextLifecycle,
      inject: [
        GlobalContextEntries,
        PullSecretCache,
        RegistryImageData,
        ...(options.admission ? [ConfigMapCache] : []),
      ],
      useFactory: (
        globalContext: GlobalContextEntries,
        secrets: PullSecretCache,
        images: RegistryImageData,
        configMaps?: ConfigMapCache,
      ) => new ContextLifecycle(configMaps ? [secrets, configMaps] : [secrets], globalContext, images),
    };
    return {
      module: ContextModule,
      // One per app, read by several of its feature modules (webhooks, admin, UpdateRequests, scans).
      global: true,
      providers: [...shared, ...admission, lifecycle],
      exports: [
        ContextApiCallers,
        GlobalContextEntries,
        PullSecretCache,
        RegistryImageData,
        IMAGE_DATA_SOURCE,
        ClusterKyvernoCelPorts,
        ClusterImagePolicyPorts,
        ...(options.admission ? [ConfigMapCache, ClusterContextLoaders] : []),
      ],
    };
  }
}

/**
 * Sigstore's trusted root from the TUF settings (Kyverno's flags), or none: then keyless entries
 * must bring their own roots and log keys. A bad setting stops the controller at start.
 */
export function trustedRootProvider(settings: ContextSettings): TufTrustedRootProvider | undefined {
  const provider = trustedRootProviderFor(settings, join(tmpdir(), 'edict-tuf'));
  if (provider) new Logger('TrustedRoot').log(`Sigstore trusted root: ${provider.describe()}`);
  return provider;
}

function admissionConfigMaps(settings: ContextSettings): Provider {
  return {
    provide: ConfigMapCache,
    inject: [InformerFactory],
    useFactory: (informers: InformerFactory) => new ConfigMapCache(settings, informers),
  };
}

function admissionLoaders(limits: ContextLoadLimits): Provider {
  return {
    provide: ClusterContextLoaders,
    inject: [ConfigMapCache, ContextApiCallers, GlobalContextEntries, IMAGE_DATA_SOURCE],
    useFactory: (
      configMaps: ConfigMapCache,
      callers: ContextApiCallers,
      globalContext: GlobalContextEntries,
      images: ImageDataSource,
    ) => new ClusterContextLoaders(configMaps, callers, globalContext.store, images, new FairContextLoads(limits)),
  };
}

/**
 * The engine of the controllers that evaluate existing resources (background rules, background
 * scans), for their own providers: exceptions from the policy cache (PolicyExceptions apply in
 * background as at admission), size bounds from the ConfigMap, context from ContextModule.
 */
export const clusterEngineProvider: Provider = {
  provide: ClusterEngine,
  inject: [
    KubeResources,
    PolicyCache,
    AdmissionConfigService,
    CustomResourceDefinitions,
    ContextApiCallers,
    GlobalContextEntries,
    IMAGE_DATA_SOURCE,
    { token: TRACING, optional: true },
  ],
  useFactory: (
    resources: KubeResources,
    cache: PolicyCache,
    clusterConfig: AdmissionConfigService,
    customResources: CustomResourceDefinitions,
    callers: ContextApiCallers,
    globalContext: GlobalContextEntries,
    images: ImageDataSource,
    tracing: Tracing | undefined,
  ) => {
    // The cache validates policies as the admission webhook did: with the custom kinds' scopes.
    customResources.feedClusterScopedKinds(cache);
    return new ClusterEngine(resources, {
      exceptions: () => cache.exceptions(),
      limits: () => clusterConfig.current().limits,
      callers,
      globalContext: globalContext.store,
      images,
      ...(tracing ? { tracing } : {}),
    });
  },
};
