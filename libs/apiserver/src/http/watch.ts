/**
 * Watch streams: newline-delimited JSON events, replayed from a resourceVersion (or starting with
 * the current state), filtered by namespace and selectors with enter/leave semantics, with
 * bookmarks, `timeoutSeconds`, and 410 Expired as an ERROR event like kube-apiserver sends it.
 */
import type { ServerResponse } from 'node:http';
import type { JsonObject } from '@edict/foundation';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { matchesFilter, type ObjectFilter } from '../resources/list';
import { asVersion } from '../resources/stored-objects';
import { storageKey } from '../resources/event-versions';
import { expired } from '../status';
import type { ChangeEvent, ObjectStore } from '../store/object-store';
import { toTable, type PartialMetadataRequest, type TableRequest } from '../tables/table';
import { partialObject } from './partial-metadata';

export interface WatchRequest {
  readonly type: ResourceType;
  readonly namespace?: string;
  readonly filter: ObjectFilter;
  /** Unset or `0`: start with ADDED events for the current state. */
  readonly resourceVersion?: string;
  readonly allowBookmarks: boolean;
  readonly timeoutSeconds?: number;
  readonly bookmarkIntervalMs: number;
  /** Events carry one-row Tables; the first carries the column definitions, as kube-apiserver sends them. */
  readonly table?: TableRequest;
  /** Events carry PartialObjectMetadata, bookmarks too (errors stay Status), as kube-apiserver sends them. */
  readonly partialMetadata?: PartialMetadataRequest;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** An open watch, so the server can end them all (on stop, or by fault injection). */
export interface OpenWatch {
  close(): void;
}

export function startWatch(
  store: ObjectStore,
  response: ServerResponse,
  request: WatchRequest,
  onClose: (watch: OpenWatch) => void,
): OpenWatch {
  const { type, namespace, filter } = request;
  const groupResource = storageKey(type);
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  response.flushHeaders();

  let headers = true;
  // Events written in one turn of the event loop (a busy server handles many writes per turn) go out
  // in one socket write, not one each.
  let corked = false;
  const send = (eventType: WatchEventType, object: JsonObject): void => {
    if (!corked) {
      corked = true;
      response.cork();
      setImmediate(() => {
        corked = false;
        if (!response.writableEnded) response.uncork();
      });
    }
    response.write(`${JSON.stringify({ type: eventType, object: encode(eventType, object) })}\n`);
  };
  // Bookmarks and errors stay as they are: a client reads only their resourceVersion or Status.
  const encode = (eventType: WatchEventType, object: JsonObject): JsonObject => {
    if (request.partialMetadata && eventType !== 'ERROR') return partialObject(object, request.partialMetadata);
    if (!request.table || eventType === 'BOOKMARK' || eventType === 'ERROR') return object;
    const metadata = { resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? '') };
    const table = toTable(type, [object], metadata, request.table, { headers, now: Date.now() });
    headers = false;
    return table;
  };
  const inScope = (event: ChangeEvent): boolean =>
    !type.namespaced || namespace === undefined || event.namespace === namespace;
  const deliver = (event: ChangeEvent): void => {
    if (event.groupResource !== groupResource || !inScope(event)) return;
    const now = matchesFilter(filter, event.object);
    const before = event.previous ? matchesFilter(filter, event.previous) : false;
    const object = asVersion(type, event.object);
    if (event.type === 'ADDED') {
      if (now) send('ADDED', object);
    } else if (event.type === 'DELETED') {
      if (now) send('DELETED', object);
    } else if (now && before) send('MODIFIED', object);
    else if (now) send('ADDED', object);
    else if (before) send('DELETED', object);
  };

  let closed = false;
  let unsubscribe = (): void => {};
  const timers: NodeJS.Timeout[] = [];
  const watch: OpenWatch = {
    close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      timers.forEach(clearTimeout);
      response.end();
      onClose(watch);
    },
  };
  response.on('close', () => watch.close());

  const from = request.resourceVersion;
  if (from === undefined || from === '' || from === '0') {
    for (const object of store.list(groupResource, type.namespaced ? namespace : undefined)) {
      if (matchesFilter(filter, object)) send('ADDED', asVersion(type, object));
    }
  } else {
    const version = Number(from);
    const replay = Number.isInteger(version) ? store.changesSince(version, groupResource) : undefined;
    if (!replay) {
      send('ERROR', expired(version, store.oldestResumableVersion).toStatus());
      watch.close();
      return watch;
    }
    replay.forEach(deliver);
  }
  unsubscribe = store.subscribe(deliver);

  if (request.allowBookmarks) {
    const bookmark = (): void => {
      send('BOOKMARK', {
        kind: type.kind,
        apiVersion: apiVersionOf(type),
        metadata: { resourceVersion: String(store.resourceVersion) },
      });
    };
    const interval = setInterval(bookmark, request.bookmarkIntervalMs);
    timers.push(interval);
  }
  if (request.timeoutSeconds !== undefined && request.timeoutSeconds > 0) {
    timers.push(setTimeout(() => watch.close(), request.timeoutSeconds * 1000));
  }
  return watch;
}
