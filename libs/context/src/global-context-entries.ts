/**
 * Feeds a GlobalContextStore in the controller it runs in, as Kyverno's global context controller
 * does in its admission, background and reports controllers: an informer over GlobalContextEntries,
 * and for `kubernetesResource` entries an informer over the named resource, its kind found through
 * API discovery; `apiCall` entries are called and refreshed by the store. Every replica keeps its
 * own (each evaluates), so none waits for a leader.
 */
import { errorMessage, type JsonValue, type KubeObject } from '@edict/foundation';
import {
  Informer,
  isConflict,
  isNotFound,
  resourceListWatch,
  type EventInput,
  type InformerLogger,
  type KubeResources,
} from '@edict/kube';
import { routeApiCall, type ApiCallers } from './cluster-context-loaders';
import type { ContextSettings, InformerSource } from './context-settings';
import {
  GlobalContextStore,
  type EntryOutcome,
  type GlobalContextEntryObject,
  type GroupVersionResourceRef,
  type ResourceFeed,
} from './global-context-store';

/** The version read (Kyverno's controllers watch v2beta1, the stored one; v2alpha1 is deprecated). */
export const GLOBAL_CONTEXT_ENTRY_API_VERSION = 'kyverno.io/v2beta1';

export interface GlobalContextEntriesDependencies {
  readonly resources: KubeResources;
  /** Creates the GlobalContextEntry informer (and stops it with the others). */
  readonly informers: InformerSource;
  /** The controller's apiCall callers (the API server's and the egress-guarded services'). */
  readonly callers: ApiCallers;
  readonly logger?: InformerLogger;
  /**
   * Write each entry's outcome into its status (Kyverno's admission controller does; its other
   * controllers keep their own copy silently): the Ready condition (Succeeded, or Failed with why),
   * `ready`, and `lastRefreshTime` after a successful apiCall.
   */
  readonly updateStatus?: boolean;
  /** Kyverno's --maxGlobalContextEntries (0 or absent: unbounded). */
  readonly maxEntries?: number;
  /**
   * Records Kyverno's Warning Event on an entry whose apiCall or resource failed to load (source
   * `globalcontext-controller`, action `Retrying`, reason `FailedToCallAPI` or `FailedToList`).
   */
  readonly recordEvent?: (event: EventInput) => void;
}

/** Kyverno's event source (reportingController) and action for global context failures. */
export const GLOBAL_CONTEXT_EVENT_SOURCE = 'globalcontext-controller';
export const GLOBAL_CONTEXT_EVENT_ACTION = 'Retrying';

/** The status condition type and reasons Kyverno writes on a GlobalContextEntry. */
export const GLOBAL_CONTEXT_ENTRY_CONDITION_READY = 'Ready';
export const GLOBAL_CONTEXT_ENTRY_REASON_SUCCEEDED = 'Succeeded';
export const GLOBAL_CONTEXT_ENTRY_REASON_FAILED = 'Failed';
/** Longest condition message (metav1.Condition's maxLength). */
const MAX_CONDITION_MESSAGE = 32_768;
const STATUS_ATTEMPTS = 5;

export class GlobalContextEntries {
  readonly store: GlobalContextStore;
  private readonly entries: Informer<KubeObject>;
  /** Each entry's uid, for the events about it. */
  private readonly uids = new Map<string, string>();

  constructor(
    private readonly settings: Pick<ContextSettings, 'watchTimeoutSeconds'>,
    private readonly deps: GlobalContextEntriesDependencies,
  ) {
    this.store = new GlobalContextStore({
      openResource: (ref) => this.openResource(ref),
      // GlobalContextEntries are cluster-scoped objects their (cluster) authors control.
      callApi: (call) => routeApiCall(call, deps.callers, {}),
      ...(deps.maxEntries ? { maxEntries: deps.maxEntries } : {}),
      ...(deps.updateStatus || deps.recordEvent ? { onOutcome: (name, outcome) => this.onOutcome(name, outcome) } : {}),
    });
    this.entries = deps.informers.create<KubeObject>({
      apiVersion: GLOBAL_CONTEXT_ENTRY_API_VERSION,
      kind: 'GlobalContextEntry',
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
    const upsert = (object: KubeObject) => {
      const name = object.metadata?.name;
      if (name && object.metadata?.uid) this.uids.set(name, object.metadata.uid);
      this.store.upsert(object as GlobalContextEntryObject);
    };
    this.entries.on('add', upsert);
    this.entries.on('update', upsert);
    this.entries.on('delete', (object) => {
      const name = object.metadata?.name ?? '';
      this.store.remove(name);
      this.uids.delete(name);
    });
  }

  private onOutcome(name: string, outcome: EntryOutcome): void {
    if (this.deps.updateStatus) void this.writeStatus(name, outcome);
    if (outcome.event && this.deps.recordEvent) {
      const uid = this.uids.get(name);
      this.deps.recordEvent({
        regarding: {
          apiVersion: GLOBAL_CONTEXT_ENTRY_API_VERSION,
          kind: 'GlobalContextEntry',
          name,
          ...(uid ? { uid } : {}),
        },
        type: 'Warning',
        reason: outcome.event.reason,
        action: GLOBAL_CONTEXT_EVENT_ACTION,
        note: outcome.event.message,
      });
    }
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

  /**
   * Sets the Ready condition (its lastTransitionTime moves only when its status does, as
   * meta.SetStatusCondition) and, after a successful refresh, lastRefreshTime; read-modify-write on
   * the status subresource, again on a conflict. An entry gone meanwhile is no error.
   */
  private async writeStatus(name: string, outcome: EntryOutcome): Promise<void> {
    const ref = { apiVersion: GLOBAL_CONTEXT_ENTRY_API_VERSION, kind: 'GlobalContextEntry', name };
    for (let attempt = 1; attempt <= STATUS_ATTEMPTS; attempt++) {
      try {
        const current = await this.deps.resources.find<KubeObject>(ref);
        if (!current) return;
        const status = { ...((current['status'] as Record<string, unknown> | undefined) ?? {}) };
        status['conditions'] = withReadyCondition(status['conditions'], outcome, generationOf(current));
        status['ready'] = outcome.ready;
        if (outcome.refreshedAt) status['lastRefreshTime'] = rfc3339(outcome.refreshedAt);
        await this.deps.resources.replace({ ...current, status }, { subresource: 'status' });
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error) || attempt === STATUS_ATTEMPTS) {
          this.deps.logger?.warn(`global context entry ${name}: writing its status: ${errorMessage(error)}`);
          return;
        }
      }
    }
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
    whenSynced: () => informer.waitForSync(),
    list: () => (snapshot ??= informer.list() as unknown as JsonValue[]),
    lastError: () => informer.stats().lastError,
    stop: () => informer.stop(),
  };
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** `conditions` with the Ready condition set from `outcome` (the others kept). */
function withReadyCondition(conditions: unknown, outcome: EntryOutcome, generation: number | undefined): Condition[] {
  const list = Array.isArray(conditions) ? (conditions as Condition[]) : [];
  const previous = list.find((condition) => condition?.type === GLOBAL_CONTEXT_ENTRY_CONDITION_READY);
  const status = outcome.ready ? 'True' : 'False';
  const ready: Condition = {
    type: GLOBAL_CONTEXT_ENTRY_CONDITION_READY,
    status,
    reason: outcome.ready ? GLOBAL_CONTEXT_ENTRY_REASON_SUCCEEDED : GLOBAL_CONTEXT_ENTRY_REASON_FAILED,
    message: outcome.message.slice(0, MAX_CONDITION_MESSAGE),
    lastTransitionTime:
      previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339(new Date()),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  return [...list.filter((condition) => condition !== previous), ready];
}

/** metav1.Time: RFC 3339 to the second. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function generationOf(object: KubeObject): number | undefined {
  const generation = object.metadata?.generation;
  return typeof generation === 'number' ? generation : undefined;
}
