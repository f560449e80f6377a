/** JSON merge patch (RFC 7386): maps merge recursively, `null` deletes, anything else replaces. */
import { isObject, type JsonValue } from '@edict/foundation';

export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const result = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
