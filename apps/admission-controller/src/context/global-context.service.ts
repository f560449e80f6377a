/**
 * Feeds the GlobalContextStore in this replica (every replica serves reviews, so none waits for
 * the leader): an informer over GlobalContextEntries, and for `kubernetesResource` entries an
 * informer over the named resource, its kind found through API discovery.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { JsonValue } from '@edict/foundation';
import { Informer, InformerFactory, InformerService, KubeResources, resourceListWatch } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { ApiResources } from '../cluster/api-resources';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { ContextApiCallers, routeApiCall } from '@edict/context';
import {
  GlobalContextStore,
  type GlobalContextEntryObject,
  type GroupVersionResourceRef,
  type ResourceFeed,
} from './global-context-store';

export const GLOBAL_CONTEXT_ENTRY_API_VERSION = 'kyverno.io/v2alpha1';

@Injectable()
export class GlobalContextService extends InformerService implements OnModuleDestroy {
  readonly store: GlobalContextStore;
  private readonly logger = new Logger('GlobalContext');

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    informers: InformerFactory,
    private readonly resources: KubeResources,
    private readonly discovery: ApiResources,
    callers: ContextApiCallers,
  ) {
    super(informers, settings.watchTimeoutSeconds);
    this.store = new GlobalContextStore({
      openResource: (ref) => this.openResource(ref),
      // GlobalContextEntries are cluster-scoped objects their (cluster) authors control.
      callApi: (call) => routeApiCall(call, callers, {}),
    });
    const entries = this.watch<KubeObject>({
      apiVersion: GLOBAL_CONTEXT_ENTRY_API_VERSION,
      kind: 'GlobalContextEntry',
    });
    const upsert = (object: KubeObject) => this.store.upsert(object as GlobalContextEntryObject);
    entries.on('add', upsert);
    entries.on('update', upsert);
    entries.on('delete', (object) => this.store.remove(object.metadata?.name ?? ''));
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.stop();
  }

  private async openResource(ref: GroupVersionResourceRef): Promise<ResourceFeed> {
    const gvk = await this.discovery.kindOf(ref);
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    if (!gvk) throw new Error(`the API server serves no resource "${ref.resource}" in ${apiVersion}`);
    const informer = new Informer<KubeObject>(
      resourceListWatch<KubeObject>(this.resources, {
        apiVersion,
        kind: gvk.kind,
        ...(ref.namespace ? { namespace: ref.namespace } : {}),
        watchTimeoutSeconds: this.settings.watchTimeoutSeconds,
      }),
      {
        name: `global context ${apiVersion}/${gvk.kind}${ref.namespace ? ` in ${ref.namespace}` : ''}`,
        logger: { warn: (message) => this.logger.warn(message) },
      },
    );
    return informerFeed(informer);
  }
}

/** An informer as a ResourceFeed: the list is rebuilt only after a change. */
function informerFeed(informer: Informer<KubeObject>): ResourceFeed {
  let snapshot: JsonValue[] | undefined;
  const changed = () => {
    snapshot = undefined;
  };
  informer.on('add', changed);
  informer.on('update', changed);
  informer.on('delete', changed);
  informer.start();
  return {
    hasSynced: () => informer.hasSynced(),
    list: () => (snapshot ??= informer.list() as unknown as JsonValue[]),
    lastError: () => informer.stats().lastError,
    stop: () => informer.stop(),
  };
}
