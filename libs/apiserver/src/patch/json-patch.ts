/** JSON patch (RFC 6902) through fast-json-patch, with failures turned into kube-style 422s. */
import type { JsonObject, JsonValue } from '@edict/foundation';
import { applyPatch, type Operation } from 'fast-json-patch';
import { ApiError, badRequest } from '../status';

export function applyJsonPatch(target: JsonObject, patch: JsonValue): JsonObject {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    return applyPatch(target, patch as unknown as Operation[], true, false).newDocument as JsonObject;
  } catch (error) {
    const operation = (error as { operation?: { op?: string; path?: string } }).operation;
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const where = operation ? `${operation.op ?? '?'} operation does not apply: ${operation.path ?? ''}: ` : '';
    throw new ApiError(422, 'Invalid', `${where}${detail}`);
  }
}
