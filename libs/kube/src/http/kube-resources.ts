/**
 * Plain-JSON resource access by apiVersion + kind: discovery (cached) maps the kind to its REST
 * path, then get/list/create/replace/patch/delete/watch. Lists fill in the kind/apiVersion their
 * items lack. Every failure from the server is a `KubeApiError`.
 */
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import { KubeApiError } from '../errors/kube-api-error';
import { PATCH_CONTENT_TYPES, type JsonPatchOperation, type PatchType } from '../helpers/patch-types';
import { GroupVersionResources, groupVersionPath, type ServedResource } from '../discovery/group-version-resources';
import type { KubeHttpClient, KubeStream } from './kube-http-client';

/** What names one resource type (and, for single objects, the object). */
export interface ResourceRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** A top-level API resource as discovery serves it (plural REST name, kind, scope). */
export type ApiResourceInfo = ServedResource;

export interface ListPage<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * Ask for PartialObjectMetadataList (items with only apiVersion, kind PartialObjectMetadata and
   * metadata), as client-go's metadata client does; a server without it answers the full list.
   */
  readonly metadataOnly?: boolean;
}

/** client-go's metadata client's Accept headers (JSON forms), the plain type as the fallback. */
export const PARTIAL_METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
export const PARTIAL_METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export interface WatchQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  /** Server-side end of the watch. */
  readonly timeoutSeconds?: number;
  /** How long to wait for the answer's headers. */
  readonly connectTimeoutMs?: number;
  /** Ends the watch with an error when no line arrives for this long (0: never). */
  readonly idleTimeoutMs?: number;
  /** Aborts the watch while it connects (afterwards, use the returned stream's `abort`). */
  readonly signal?: AbortSignal;
  /** Events carry PartialObjectMetadata (see `ListQuery.metadataOnly`). */
  readonly metadataOnly?: boolean;
}

export interface RawWatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

export interface WriteQuery {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly force?: boolean;
  /** A subresource written as its parent (`status`, `resize`, ...). */
  readonly subresource?: string;
}

export class KubeResources {
  /** Discovery per group version, kept until a kind missing from it reads it again. */
  private readonly discovery: GroupVersionResources;

  /** Called for each event a recorder over these resources gives up on (kyverno_events_dropped_total). */
  onEventDropped?: () => void;

  constructor(readonly http: KubeHttpClient) {
    this.discovery = new GroupVersionResources((path, signal) => this.http.json({ path, signal }));
  }

  /** The API resource serving `kind` in `apiVersion` (cached; read again once when unknown). */
  async resource(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ApiResourceInfo> {
    const hit = await this.discovery.find(apiVersion, (r) => r.kind === kind, signal);
    if (!hit) throw new KubeApiError(404, 'NotFound', `the server does not serve kind "${kind}" in "${apiVersion}"`);
    return hit;
  }

  /** The top-level API resource `name` (its plural) in `apiVersion`, undefined when not served (cached like `resource`). */
  async resourceNamed(apiVersion: string, name: string, signal?: AbortSignal): Promise<ApiResourceInfo | undefined> {
    return this.discovery.find(apiVersion, (r) => r.name === name, signal);
  }

  /**
   * The REST path for a type, a namespace's collection, or one object. The ref's scope must fit the
   * kind's: a namespace given for a cluster-scoped kind is refused, not dropped (the API server
   * answers such a path with 404, and dropping it would let a namespaced caller reach a
   * cluster-scoped object); a namespaced kind without a namespace names only the all-namespaces
   * collection (a list or watch), never one object.
   */
  async path(ref: ResourceRef, subresource?: string, signal?: AbortSignal): Promise<string> {
    const info = await this.resource(ref.apiVersion, ref.kind, signal);
    checkScope(ref, info);
    const parts = [groupVersionPath(ref.apiVersion)];
    if (info.namespaced && ref.namespace) parts.push('namespaces', encodeURIComponent(ref.namespace));
    parts.push(info.name);
    if (ref.name !== undefined) parts.push(encodeURIComponent(ref.name));
    if (subresource) parts.push(subresource);
    return parts.join('/');
  }

  /** Where a new object is posted: its namespace's collection, which a namespaced kind must name. */
  private async collectionPath(ref: ResourceRef): Promise<string> {
    const info = await this.resource(ref.apiVersion, ref.kind);
    if (info.namespaced && !ref.namespace) throw scopeError(ref, 'is namespaced: the object needs a namespace');
    return this.path({ ...ref, name: undefined });
  }

  async get<T extends ObjectHeader = KubeObject>(ref: ResourceRef & { name: string }): Promise<T> {
    return this.http.json<T>({ path: await this.path(ref) });
  }

  /** `get`, with 404 as `undefined`. */
  async find<T extends ObjectHeader = KubeObject>(ref: ResourceRef & { name: string }): Promise<T | undefined> {
    try {
      return await this.get<T>(ref);
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /** One page of a list; items carry the kind and apiVersion of `ref`. */
  async listPage<T extends ObjectHeader = KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    const body = await this.http.json<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>({
      path: await this.path(ref, undefined, query.signal),
      query: {
        labelSelector: query.labelSelector,
        fieldSelector: query.fieldSelector,
        limit: query.limit,
        continue: query.continue,
      },
      timeoutMs: query.timeoutMs,
      signal: query.signal,
      ...(query.metadataOnly ? { accept: PARTIAL_METADATA_LIST_ACCEPT } : {}),
    });
    const items = (body.items ?? []).map((item) => withTypeMeta(item, ref));
    return {
      items,
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(body.metadata?.continue ? { continue: body.metadata.continue } : {}),
    };
  }

  /** Every page of a list (`limit` sets the page size); the resourceVersion is the first page's. */
  async list<T extends ObjectHeader = KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    const first = await this.listPage<T>(ref, query);
    const items = [...first.items];
    let next = first.continue;
    while (next) {
      const page = await this.listPage<T>(ref, { ...query, continue: next });
      items.push(...page.items);
      next = page.continue;
    }
    return { items, resourceVersion: first.resourceVersion };
  }

  async create<T extends ObjectHeader = KubeObject>(object: T, query: WriteQuery = {}): Promise<T> {
    const ref = refOf(object);
    return this.http.json<T>({
      method: 'POST',
      path: await this.collectionPath(ref),
      query: writeQuery(query),
      body: object,
    });
  }

  /**
   * `create` without reading the stored object back: the answer's body is skipped, not parsed
   * (a write path that only needs to know it succeeded, such as admission reports).
   */
  async createOnly(object: ObjectHeader, query: WriteQuery = {}): Promise<void> {
    const ref = refOf(object);
    await this.http.call({
      method: 'POST',
      path: await this.collectionPath(ref),
      query: writeQuery(query),
      body: object,
    });
  }

  /** PUT: fails with 409 when `metadata.resourceVersion` is stale. */
  async replace<T extends ObjectHeader = KubeObject>(object: T, query: WriteQuery = {}): Promise<T> {
    const ref = refOf(object);
    return this.http.json<T>({
      method: 'PUT',
      path: await this.path(ref, query.subresource),
      query: writeQuery(query),
      body: object,
    });
  }

  /**
   * PATCH with an explicit patch type: `merge` or `json` for custom resources (strategic merge
   * is built-in types only), `apply` with a `fieldManager`.
   */
  async patch<T extends ObjectHeader = KubeObject>(
    ref: ResourceRef & { name: string },
    type: PatchType,
    patch: JsonPatchOperation[] | Record<string, unknown>,
    query: WriteQuery = {},
  ): Promise<T> {
    if (type === 'json' && !Array.isArray(patch)) throw new TypeError('a json patch is an array of operations');
    if (type !== 'json' && Array.isArray(patch)) throw new TypeError(`a ${type} patch is an object`);
    if (type === 'apply' && !query.fieldManager) throw new TypeError('an apply patch needs a fieldManager');
    return this.http.json<T>({
      method: 'PATCH',
      path: await this.path(ref, query.subresource),
      query: writeQuery(query),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
    });
  }

  async delete(
    ref: ResourceRef & { name: string },
    options: {
      dryRun?: boolean;
      preconditions?: { resourceVersion?: string; uid?: string };
      propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
    } = {},
  ): Promise<void> {
    const body = {
      ...(options.preconditions ? { preconditions: options.preconditions } : {}),
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    };
    await this.http.json({
      method: 'DELETE',
      path: await this.path(ref),
      query: { dryRun: options.dryRun ? 'All' : undefined },
      body: Object.keys(body).length > 0 ? { kind: 'DeleteOptions', apiVersion: 'v1', ...body } : undefined,
    });
  }

  /**
   * Opens a watch; resolves once the server accepted it. Events (kind/apiVersion filled in) go to
   * `onEvent` in order; `closed` settles when the stream ends.
   */
  async watch<T extends ObjectHeader = KubeObject>(
    ref: ResourceRef,
    query: WatchQuery,
    onEvent: (event: RawWatchEvent<T>) => void,
  ): Promise<KubeStream> {
    return this.http.stream(
      {
        path: await this.path(ref, undefined, query.signal),
        signal: query.signal,
        query: {
          watch: 'true',
          labelSelector: query.labelSelector,
          fieldSelector: query.fieldSelector,
          resourceVersion: query.resourceVersion,
          allowWatchBookmarks: query.allowWatchBookmarks,
          timeoutSeconds: query.timeoutSeconds,
        },
        timeoutMs: query.connectTimeoutMs,
        idleTimeoutMs: query.idleTimeoutMs,
        ...(query.metadataOnly ? { accept: PARTIAL_METADATA_ACCEPT } : {}),
      },
      (line) => {
        const event = JSON.parse(line) as RawWatchEvent<T>;
        const object = event.type === 'ERROR' ? event.object : withTypeMeta(event.object, ref);
        onEvent({ type: event.type, object });
      },
    );
  }
}

/** The object with `kind`/`apiVersion` set (lists omit them on items); same object when present. */
export function withTypeMeta<T extends ObjectHeader = KubeObject>(
  object: T,
  ref: { apiVersion: string; kind: string },
): T {
  if (object.kind && object.apiVersion) return object;
  const { apiVersion, kind, ...rest } = object;
  return { apiVersion: apiVersion || ref.apiVersion, kind: kind || ref.kind, ...rest } as T;
}

/** Refuses a ref whose namespace does not fit the kind's scope (see `KubeResources.path`). */
function checkScope(ref: ResourceRef, info: ApiResourceInfo): void {
  if (!info.namespaced && ref.namespace) {
    throw scopeError(ref, `is cluster-scoped: it has no namespace "${ref.namespace}"`);
  }
  if (info.namespaced && !ref.namespace && ref.name !== undefined) {
    throw scopeError(ref, `is namespaced: "${ref.name}" needs a namespace`);
  }
}

/** A 400 BadRequest, so no caller mistakes it for "not found" (a 404 reads as a missing object). */
function scopeError(ref: ResourceRef, problem: string): KubeApiError {
  const message = `kind "${ref.kind}" (${ref.apiVersion}) ${problem}`;
  return new KubeApiError(400, 'BadRequest', message, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason: 'BadRequest',
    code: 400,
  });
}

function refOf(object: ObjectHeader): ResourceRef & { name: string } {
  if (!object.apiVersion || !object.kind) throw new TypeError('the object needs apiVersion and kind');
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata?.namespace,
    name: object.metadata?.name ?? '',
  };
}

function writeQuery(query: WriteQuery): Record<string, string | boolean | undefined> {
  return {
    dryRun: query.dryRun ? 'All' : undefined,
    fieldManager: query.fieldManager,
    force: query.force,
  };
}
