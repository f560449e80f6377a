/** The keys the API server's controllers queue objects under (client-go's `namespace/name`). */
import type { JsonObject } from '@edict/foundation';
import { metadataOf } from '@edict/apiserver';

/** `namespace/name`, the key controllers queue objects under. */
export function keyOf(object: JsonObject): string {
  const meta = metadataOf(object);
  return `${String(meta.namespace ?? '')}/${String(meta.name)}`;
}

export function splitKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
