/**
 * Where an informer's objects come from: a full list, then a watch from its resourceVersion.
 * `resourceListWatch` is the API-server one; tests can hand an informer any other.
 */
import type { KubeStream } from '../http/kube-http-client';
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import type { KubeResources, RawWatchEvent, ResourceRef } from '../http/kube-resources';

export interface ListWatchSource<T extends ObjectHeader = KubeObject> {
  /** Every object now (all pages), with the list's resourceVersion. */
  list(signal?: AbortSignal): Promise<{ items: T[]; resourceVersion: string }>;
  /** Opens a watch from `resourceVersion`; resolves once the server accepted it. */
  watch(resourceVersion: string, onEvent: (event: RawWatchEvent<T>) => void, signal?: AbortSignal): Promise<KubeStream>;
}

export interface ResourceListWatchOptions extends ResourceRef {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** List page size (default 500). */
  readonly pageSize?: number;
  /** Deadline of each list page request (default 60 s). */
  readonly listTimeoutMs?: number;
  /** Server-side watch length; each watch picks at random between this and twice this (default 300). */
  readonly watchTimeoutSeconds?: number;
  /** Deadline for a watch's answer headers (default 30 s). */
  readonly watchConnectTimeoutMs?: number;
  /** A watch with no data for this long is dropped (default: its timeout plus 30 s). */
  readonly watchIdleTimeoutMs?: number;
  readonly random?: () => number;
  /** Lists and watches PartialObjectMetadata (see `ListQuery.metadataOnly`). */
  readonly metadataOnly?: boolean;
}

export function resourceListWatch<T extends ObjectHeader = KubeObject>(
  resources: KubeResources,
  options: ResourceListWatchOptions,
): ListWatchSource<T> {
  const ref: ResourceRef = { apiVersion: options.apiVersion, kind: options.kind, namespace: options.namespace };
  const random = options.random ?? Math.random;
  return {
    list: (signal) =>
      resources.list<T>(ref, {
        signal,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.pageSize ?? 500,
        timeoutMs: options.listTimeoutMs ?? 60_000,
        metadataOnly: options.metadataOnly,
      }),
    watch: (resourceVersion, onEvent, signal) => {
      const base = options.watchTimeoutSeconds ?? 300;
      const timeoutSeconds = Math.max(1, Math.round(base * (1 + random())));
      return resources.watch<T>(
        ref,
        {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          resourceVersion,
          signal,
          allowWatchBookmarks: true,
          timeoutSeconds,
          connectTimeoutMs: options.watchConnectTimeoutMs ?? 30_000,
          idleTimeoutMs: options.watchIdleTimeoutMs ?? timeoutSeconds * 1000 + 30_000,
          metadataOnly: options.metadataOnly,
        },
        onEvent,
      );
    },
  };
}
