/**
 * The data of GlobalContextEntries (kyverno.io/v2beta1, also served as v2 and v2alpha1; cluster-scoped) for `globalReference`
 * context entries, kept fresh in every replica (each serves reviews):
 *  - `kubernetesResource`: an informer over group/version/resource (in one namespace or all);
 *    the data is the list of objects;
 *  - `apiCall`: the call (urlPath or service, with the same guards as rule apiCalls) repeated every
 *    `refreshInterval` (default 10m), up to `retryLimit` attempts each time; the data is the answer.
 * `projections` ({name, jmesPath}) are JMESPath views of the data, addressed as `entry.projection`
 * (Kyverno splits `globalReference.name` at the dot). A missing, not yet loaded, failing or invalid
 * entry makes `read` throw a message naming it, which fails the rule that asked.
 */
import { type APICall } from '@edict/engine';
import { compileJmesPath, type JmesPathQuery } from '@edict/jmespath';
import { parseDuration, type JsonValue } from '@edict/foundation';

export interface GlobalContextEntrySpec {
  kubernetesResource?: { group?: string; version?: string; resource?: string; namespace?: string };
  apiCall?: APICall & { refreshInterval?: string; retryLimit?: number };
  projections?: { name?: string; jmesPath?: string }[];
}

export interface GlobalContextEntryObject {
  metadata?: { name?: string; generation?: number; resourceVersion?: string };
  spec?: GlobalContextEntrySpec;
}

export interface GroupVersionResourceRef {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace?: string;
}

/** A live list of one resource's objects (an informer in production). */
export interface ResourceFeed {
  hasSynced(): boolean;
  /** Objects now; a new array only after a change, so projections can be memoized on it. */
  list(): JsonValue[];
  /** Why it is not synced, when it failed. */
  lastError(): Error | undefined;
  /** Resolves once the first list is in (the entry turns Ready). */
  whenSynced?(): Promise<void>;
  stop(): Promise<void>;
}

/** What an entry's last load gave, for its status: ready (data in) or failed (with why). */
export interface EntryOutcome {
  readonly ready: boolean;
  readonly message: string;
  /** When an apiCall refresh succeeded (the status' lastRefreshTime). */
  readonly refreshedAt?: Date;
  /**
   * The Warning Event Kyverno's global context controller emits for this failure (an apiCall that
   * failed every attempt, a resource that cannot be watched); none for an invalid entry.
   */
  readonly event?: { readonly reason: GlobalContextEventReason; readonly message: string };
}

/** Kyverno's pkg/globalcontext/event reasons. */
export type GlobalContextEventReason = 'FailedToCallAPI' | 'FailedToList';

export interface GlobalContextDependencies {
  /** Opens a feed over a resource; rejects when the API server does not serve it. */
  openResource(ref: GroupVersionResourceRef): Promise<ResourceFeed>;
  /** One guarded apiCall (urlPath through the API server, or a service). */
  callApi(call: APICall): Promise<JsonValue>;
  /** Timers, replaceable in specs. */
  readonly setTimer?: (run: () => void, ms: number) => { cancel(): void };
  /** Each load's outcome per entry (the admission controller writes it into the entry's status). */
  readonly onOutcome?: (name: string, outcome: EntryOutcome) => void;
  /**
   * Kyverno's --maxGlobalContextEntries: entries held at most (0 or absent: unbounded). One more is
   * refused (failed, with why) and tried again when another is removed.
   */
  readonly maxEntries?: number;
}

export class GlobalContextError extends Error {
  override readonly name = 'GlobalContextError';
}

const DEFAULT_REFRESH_MS = 10 * 60_000;
const MIN_REFRESH_MS = 1_000;
const DEFAULT_RETRY_LIMIT = 3;
const MAX_RETRY_LIMIT = 10;
const RETRY_DELAY_MS = 250;

interface Source {
  /** The current data; throws when there is none to give. */
  data(): JsonValue;
  stop(): Promise<void>;
}

interface Entry {
  readonly generationKey: string;
  readonly source: Source;
  readonly projections: ReadonlyMap<string, JmesPathQuery>;
  /** Projection results by the data object they were computed from. */
  readonly projected: WeakMap<object, Map<string, JsonValue>>;
}

export class GlobalContextStore {
  private readonly entries = new Map<string, Entry>();
  /** Entries refused while the store was full, tried again (in order) when one is removed. */
  private readonly refused = new Map<string, GlobalContextEntryObject>();
  private readonly setTimer: NonNullable<GlobalContextDependencies['setTimer']>;

  constructor(private readonly deps: GlobalContextDependencies) {
    this.setTimer =
      deps.setTimer ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        timer.unref?.();
        return { cancel: () => clearTimeout(timer) };
      });
  }

  /** Starts (or restarts, when its spec changed) the entry's source. */
  upsert(object: GlobalContextEntryObject): void {
    const name = object.metadata?.name;
    if (!name) return;
    const generationKey = JSON.stringify(object.spec ?? {});
    const existing = this.entries.get(name);
    if (existing?.generationKey === generationKey) return;
    const max = this.deps.maxEntries ?? 0;
    if (!existing && max > 0 && this.entries.size >= max) {
      this.refused.set(name, object);
      this.deps.onOutcome?.(name, {
        ready: false,
        message: `the global context store is full (${max} entries, --maxGlobalContextEntries): the entry is loaded once another is removed`,
      });
      return;
    }
    this.refused.delete(name);
    void existing?.source.stop();
    this.entries.set(name, this.build(name, object.spec ?? {}, generationKey));
  }

  remove(name: string): void {
    this.refused.delete(name);
    const entry = this.entries.get(name);
    if (!entry) return;
    void entry.source.stop();
    this.entries.delete(name);
    // A place is free: the oldest refused entry takes it.
    const next = this.refused.values().next();
    if (!next.done) this.upsert(next.value);
  }

  async stop(): Promise<void> {
    this.refused.clear();
    const sources = [...this.entries.values()].map((entry) => entry.source.stop());
    this.entries.clear();
    await Promise.all(sources);
  }

  /** Entry names known (loaded or not). */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * The data `reference` names: `entry` or `entry.projection` (an entry whose own name holds the
   * dot is found first). Throws GlobalContextError when there is none.
   */
  read(reference: string): JsonValue {
    let name = reference;
    let projection: string | undefined;
    let entry = this.entries.get(reference);
    if (!entry && reference.includes('.')) {
      const dot = reference.indexOf('.');
      name = reference.slice(0, dot);
      projection = reference.slice(dot + 1);
      entry = this.entries.get(name);
    }
    if (!entry) throw new GlobalContextError(`global context entry "${name}" does not exist`);
    return this.dataOf(entry, name, projection);
  }

  /**
   * CEL's `globalContext.Get(name, projection)`: the entry's data, or the named projection of it
   * (`''`: none); undefined when there is no entry of that name.
   */
  get(name: string, projection: string): JsonValue | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return this.dataOf(entry, name, projection === '' ? undefined : projection);
  }

  private dataOf(entry: Entry, name: string, projection: string | undefined): JsonValue {
    if (projection !== undefined && !entry.projections.has(projection)) {
      const known = [...entry.projections.keys()];
      throw new GlobalContextError(
        `global context entry "${name}" has no projection "${projection}"${known.length ? ` (it has: ${known.join(', ')})` : ''}`,
      );
    }
    const data = entry.source.data();
    if (projection === undefined) return data;
    return this.project(entry, name, projection, data);
  }

  private project(entry: Entry, name: string, projection: string, data: JsonValue): JsonValue {
    const holder = typeof data === 'object' && data !== null ? data : undefined;
    const cached = holder ? entry.projected.get(holder)?.get(projection) : undefined;
    if (cached !== undefined) return cached;
    let result: JsonValue;
    try {
      result = entry.projections.get(projection)!.search(data);
    } catch (error) {
      throw new GlobalContextError(
        `global context entry "${name}": projection "${projection}" failed: ${(error as Error).message}`,
      );
    }
    if (holder) {
      let results = entry.projected.get(holder);
      if (!results) entry.projected.set(holder, (results = new Map()));
      results.set(projection, result);
    }
    return result;
  }

  private build(name: string, spec: GlobalContextEntrySpec, generationKey: string): Entry {
    const projected = new WeakMap<object, Map<string, JsonValue>>();
    try {
      const projections = compileProjections(spec.projections);
      const source = this.sourceFor(name, spec);
      return { generationKey, source, projections, projected };
    } catch (error) {
      const message = `global context entry "${name}" is invalid: ${(error as Error).message}`;
      this.deps.onOutcome?.(name, { ready: false, message });
      return { generationKey, source: failedSource(message), projections: new Map(), projected };
    }
  }

  private sourceFor(name: string, spec: GlobalContextEntrySpec): Source {
    if (spec.kubernetesResource && spec.apiCall) throw new Error('it has both kubernetesResource and apiCall');
    if (spec.kubernetesResource) return this.resourceSource(name, spec.kubernetesResource);
    if (spec.apiCall) return this.apiCallSource(name, spec.apiCall);
    throw new Error('it has neither kubernetesResource nor apiCall');
  }

  private resourceSource(name: string, resource: NonNullable<GlobalContextEntrySpec['kubernetesResource']>): Source {
    const { group = '', version, resource: plural, namespace } = resource;
    if (!version || !plural) throw new Error('kubernetesResource needs version and resource');
    const ref: GroupVersionResourceRef = { group, version, resource: plural, ...(namespace ? { namespace } : {}) };
    const what = `${group ? `${group}/` : ''}${version}/${plural}${namespace ? ` in ${namespace}` : ''}`;
    let feed: ResourceFeed | undefined;
    let failure: Error | undefined;
    let stopped = false;
    const report = (outcome: EntryOutcome) => {
      if (!stopped) this.deps.onOutcome?.(name, outcome);
    };
    const opening = this.deps.openResource(ref).then(
      (opened) => {
        if (stopped) return opened.stop();
        feed = opened;
        void opened.whenSynced?.().then(
          () => report({ ready: true, message: 'Ready' }),
          () => undefined,
        );
      },
      (error: Error) => {
        failure = error;
        report({
          ready: false,
          message: `cannot watch ${what}: ${error.message}`,
          // Kyverno's words, with client-go's GroupVersionResource.String().
          event: {
            reason: 'FailedToList',
            message: `failed to sync cache for ${group}/${version}, Resource=${plural}`,
          },
        });
      },
    );
    return {
      data() {
        if (failure)
          throw new GlobalContextError(`global context entry "${name}": cannot watch ${what}: ${failure.message}`);
        if (!feed || !feed.hasSynced()) {
          const why = feed?.lastError();
          throw new GlobalContextError(
            `global context entry "${name}" is not loaded yet (listing ${what}${why ? `: ${why.message}` : ''})`,
          );
        }
        return feed.list();
      },
      async stop() {
        stopped = true;
        await opening;
        await feed?.stop();
      },
    };
  }

  private apiCallSource(name: string, call: NonNullable<GlobalContextEntrySpec['apiCall']>): Source {
    const { refreshInterval, retryLimit, ...request } = call;
    if (!request.urlPath === !request.service) throw new Error('apiCall needs either urlPath or service');
    const periodMs = refreshInterval === undefined ? DEFAULT_REFRESH_MS : durationMs(refreshInterval);
    if (periodMs < MIN_REFRESH_MS)
      throw new Error(`apiCall.refreshInterval must be at least 1s, got ${refreshInterval}`);
    const attempts = Math.min(Math.max(Math.trunc(retryLimit ?? DEFAULT_RETRY_LIMIT), 1), MAX_RETRY_LIMIT);

    let state: { data?: JsonValue; error?: Error; loaded: boolean } = { loaded: false };
    let timer: { cancel(): void } | undefined;
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        timer = this.setTimer(resolve, ms);
      });
    const refresh = async (): Promise<void> => {
      let lastError: Error | undefined;
      for (let attempt = 0; attempt < attempts && !stopped; attempt++) {
        if (attempt > 0) await wait(RETRY_DELAY_MS * 2 ** (attempt - 1));
        if (stopped) return;
        try {
          const data = await this.deps.callApi(request);
          if (stopped) return;
          state = { data, loaded: true };
          this.deps.onOutcome?.(name, { ready: true, message: 'Ready', refreshedAt: new Date() });
          return;
        } catch (error) {
          lastError = error as Error;
        }
      }
      // Kyverno: a failing refresh replaces the data with the error until a call succeeds again.
      if (!stopped && lastError) {
        state = { error: lastError, loaded: true };
        this.deps.onOutcome?.(name, {
          ready: false,
          message: lastError.message,
          event: { reason: 'FailedToCallAPI', message: lastError.message },
        });
      }
    };
    const loop = (): void => {
      running = refresh().then(() => {
        if (!stopped) timer = this.setTimer(loop, periodMs);
      });
    };
    loop();
    return {
      data() {
        if (state.error) throw new GlobalContextError(`global context entry "${name}" failed: ${state.error.message}`);
        if (!state.loaded)
          throw new GlobalContextError(`global context entry "${name}" is not loaded yet (first call pending)`);
        return state.data ?? null;
      },
      async stop() {
        stopped = true;
        timer?.cancel();
        await running.catch(() => undefined);
      },
    };
  }
}

function compileProjections(projections: GlobalContextEntrySpec['projections']): Map<string, JmesPathQuery> {
  const compiled = new Map<string, JmesPathQuery>();
  for (const [index, projection] of (projections ?? []).entries()) {
    const name = projection?.name;
    if (!name) throw new Error(`projections[${index}] needs a name`);
    if (compiled.has(name)) throw new Error(`projections[${index}]: the name "${name}" is used twice`);
    if (!projection.jmesPath) throw new Error(`projections[${index}] (${name}) needs a jmesPath`);
    try {
      compiled.set(name, compileJmesPath(projection.jmesPath));
    } catch (error) {
      throw new Error(`projections[${index}] (${name}): invalid jmesPath: ${(error as Error).message}`);
    }
  }
  return compiled;
}

/** A Go duration (`30s`, `1m30s`) in milliseconds. */
function durationMs(text: string): number {
  const nanos = typeof text === 'string' ? parseDuration(text) : undefined;
  if (nanos === undefined)
    throw new Error(`apiCall.refreshInterval ${JSON.stringify(text)} is not a duration such as 30s or 10m`);
  return nanos / 1e6;
}

function failedSource(message: string): Source {
  return {
    data() {
      throw new GlobalContextError(message);
    },
    async stop() {},
  };
}
