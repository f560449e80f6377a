/**
 * What kube's custom resource handler does with a body and its version's schema: unknown fields
 * pruned and defaults filled in when the body is read (before mutating webhooks, and again on what
 * they return), and the result checked before validating webhooks see it. Built-in objects lose
 * the fields their type does not have, as typed decoding drops them.
 */
import type { JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';
import { withDefaults } from '../schema/schema-defaults';
import { validateBySchema } from '../schema/schema-validation';
import { invalid } from '../status';
import { metadataOf } from './prepare';
import { pruneUnknownFields } from './field-validation';

export function defaultedBySchema(type: ResourceType, object: JsonObject): JsonObject {
  const pruned = pruneUnknownFields(type, object).value;
  return type.schema ? withDefaults(pruned, type.schema) : pruned;
}

/** Throws kube's 422 Invalid naming every field the schema refuses. */
export function checkAgainstSchema(type: ResourceType, object: JsonObject): void {
  if (!type.schema) return;
  const causes = validateBySchema(object, type.schema);
  if (causes.length > 0) {
    throw invalid({ group: type.group, kind: type.kind, name: String(metadataOf(object).name ?? '') }, causes);
  }
}
