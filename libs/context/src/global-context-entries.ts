/**
 * Feeds a GlobalContextStore in the controller it runs in, as Kyverno's global context controller
 * does in its admission, background and reports controllers: an informer over GlobalContextEntries,
 * and for `kubernetesResource` entries an informer over the named resource, its kind found through
 * API discovery; `apiCall` entries are called and refreshed by the store. Every replica keeps its
 * own (each evaluates), so none waits for a leader.
 */
import type { JsonValue, KubeObject } from '@edict/foundation';
import { Informer, isNotFound, resourceListWatch, type InformerLogger, type KubeResources } from '@edict/kube';
import { routeApiCall, type ApiCallers } from './cluster-context-loaders';
import type { ContextSettings, InformerSource } from './context-settings';
import {
  GlobalContextStore,
  type GlobalContextEntryObject,
  type GroupVersionResourceRef,
  type ResourceFeed,
} from './global-context-store';

export const GLOBAL_CONTEXT_ENTRY_API_VERSION = 'kyverno.io/v2alpha1';

export interface GlobalContextEntriesDependencies {
  readonly resources: KubeResources;
  /** Creates the GlobalContextEntry informer (and stops it with the others). */
  readonly informers: InformerSource;
  /** The controller's apiCall callers (the API server's and the egress-guarded services'). */
  readonly callers: ApiCallers;
  readonly logger?: InformerLogger;
}

export class GlobalContextEntries {
  readonly store: GlobalContextStore;
  private readonly entries: Informer<KubeObject>;

  constructor(
    private readonly settings: Pick<ContextSettings, 'watchTimeoutSeconds'>,
    private readonly deps: GlobalContextEntriesDependencies,
  ) {
    this.store = new GlobalContextStore({
      openResource: (ref) => this.openResource(ref),
      // GlobalContextEntries are cluster-scoped objects their (cluster) authors control.
      callApi: (call) => routeApiCall(call, deps.callers, {}),
    });
    this.entries = deps.informers.create<KubeObject>({
      apiVersion: GLOBAL_CONTEXT_ENTRY_API_VERSION,
      kind: 'GlobalContextEntry',
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
    const upsert = (object: KubeObject) => this.store.upsert(object as GlobalContextEntryObject);
    this.entries.on('add', upsert);
    this.entries.on('update', upsert);
    this.entries.on('delete', (object) => this.store.remove(object.metadata?.name ?? ''));
  }

  /** Starts the GlobalContextEntry informer (its factory stops it). */
  start(): void {
    this.entries.start();
  }

  hasSynced(): boolean {
    return this.entries.hasSynced();
  }

  /** Stops every entry's source (resource informers, apiCall refreshes). */
  async stop(): Promise<void> {
    await this.store.stop();
  }

  private async openResource(ref: GroupVersionResourceRef): Promise<ResourceFeed> {
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    const kind = await this.kindServing(apiVersion, ref.resource);
    if (!kind) throw new Error(`the API server serves no resource "${ref.resource}" in ${apiVersion}`);
    const informer = new Informer<KubeObject>(
      resourceListWatch<KubeObject>(this.deps.resources, {
        apiVersion,
        kind,
        ...(ref.namespace ? { namespace: ref.namespace } : {}),
        watchTimeoutSeconds: this.settings.watchTimeoutSeconds,
      }),
      {
        name: `global context ${apiVersion}/${kind}${ref.namespace ? ` in ${ref.namespace}` : ''}`,
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
      },
    );
    return informerFeed(informer);
  }

  /** The kind of a top-level resource, from libs/kube's discovery (an unknown group version serves none). */
  private async kindServing(apiVersion: string, resource: string): Promise<string | undefined> {
    try {
      return (await this.deps.resources.resourceNamed(apiVersion, resource))?.kind;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
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
