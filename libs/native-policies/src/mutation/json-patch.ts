/**
 * RFC 6902 JSON Patch as kube applies a JSONPatch mutation (evanphx/json-patch v4): every operation
 * must apply (a missing parent, key or index is an error), a failed `test` leaves the object as it
 * was, and the result must still be a Kubernetes object. Through fast-json-patch, which validates
 * each operation and refuses prototype keys; the input is not modified.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { applyPatch, type Operation } from 'fast-json-patch';

export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: JsonValue;
}

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** A patch that does not apply; `index` is the operation's position in the patch. */
export class JsonPatchError extends Error {
  override readonly name = 'JsonPatchError';
  constructor(
    message: string,
    readonly index?: number,
  ) {
    super(message);
  }
}

/** The patched object, or undefined when a `test` operation failed (kube then keeps the object). */
export function applyJsonPatchOperations(
  object: JsonObject,
  operations: readonly JsonPatchOperation[],
): JsonObject | undefined {
  operations.forEach((operation, i) => {
    if (!OPERATIONS.has(operation.op))
      throw new JsonPatchError(`operation ${i}: unexpected kind: "${operation.op}"`, i);
    if ((operation.op === 'move' || operation.op === 'copy') && operation.from === undefined) {
      throw new JsonPatchError(`operation ${i}: ${operation.op} operation requires "from"`, i);
    }
  });
  let patched: unknown;
  try {
    patched = applyPatch(object, operations as unknown as Operation[], true, false).newDocument;
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name === 'TEST_OPERATION_FAILED') return undefined;
    const index = (error as { index?: unknown }).index;
    const operation = typeof index === 'number' ? operations[index] : undefined;
    const detail = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    const where = operation ? `operation ${index as number} (${operation.op} ${JSON.stringify(operation.path)}): ` : '';
    throw new JsonPatchError(`${where}${detail}`, typeof index === 'number' ? index : undefined);
  }
  if (!isObject(patched)) throw new JsonPatchError('the patched document is not an object');
  if (typeof patched.kind !== 'string' || patched.kind === '')
    throw new JsonPatchError("the patched object's kind is missing");
  if (typeof patched.apiVersion !== 'string' || patched.apiVersion === '')
    throw new JsonPatchError("the patched object's apiVersion is missing");
  return patched;
}
