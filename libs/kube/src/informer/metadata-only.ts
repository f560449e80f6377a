/**
 * A list-watch source whose objects keep only what identifies them (name, namespace, uid,
 * resourceVersion, creationTimestamp) and the labels asked for, so that an informer over many
 * objects whose content is read elsewhere costs little memory.
 */
import type { ObjectHeader } from '@edict/foundation';
import type { RawWatchEvent } from '../http/kube-resources';
import type { ListWatchSource } from './list-watch';

export function metadataOnly<T extends ObjectHeader>(
  source: ListWatchSource<T>,
  keptLabels: readonly string[] = [],
): ListWatchSource<T> {
  const slim = (object: T): T => {
    const metadata = object.metadata ?? {};
    const labels: Record<string, string> = {};
    for (const label of keptLabels) {
      const value = metadata.labels?.[label];
      if (value !== undefined) labels[label] = value;
    }
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: {
        name: metadata.name,
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        uid: metadata.uid,
        resourceVersion: metadata.resourceVersion,
        ...(metadata.creationTimestamp ? { creationTimestamp: metadata.creationTimestamp } : {}),
        ...(keptLabels.length > 0 ? { labels } : {}),
      },
    } as T; // the header only: what a metadata-only informer's users read
  };
  return {
    list: async (signal) => {
      const page = await source.list(signal);
      return { items: page.items.map(slim), resourceVersion: page.resourceVersion };
    },
    watch: (resourceVersion, onEvent, signal) =>
      source.watch(
        resourceVersion,
        (event: RawWatchEvent<T>) =>
          onEvent(
            event.type === 'ERROR' || event.type === 'BOOKMARK' ? event : { ...event, object: slim(event.object) },
          ),
        signal,
      ),
  };
}
