/**
 * What kube's custom resource handler does with a body and its version's schema: defaults filled
 * in when the body is read (before mutating webhooks, and again on what they return), and the
 * result checked before validating webhooks see it. Types without a schema pass unchanged.
 */
import type { JsonObject } from '@edict/engine';
import type { ResourceType } from '../registry/resource-type';
import { withDefaults } from '../schema/schema-defaults';
import { validateBySchema } from '../schema/schema-validation';
import { invalid } from '../status';
import { metadataOf } from './prepare';

export function defaultedBySchema(type: ResourceType, object: JsonObject): JsonObject {
  return type.schema ? withDefaults(object, type.schema) : object;
}

/** Throws kube's 422 Invalid naming every field the schema refuses. */
export function checkAgainstSchema(type: ResourceType, object: JsonObject): void {
  if (!type.schema) return;
  const causes = validateBySchema(object, type.schema);
  if (causes.length > 0) {
    throw invalid({ group: type.group, kind: type.kind, name: String(metadataOf(object).name ?? '') }, causes);
  }
}
