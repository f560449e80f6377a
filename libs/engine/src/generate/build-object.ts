import { cloneJson, isObject, type JsonObject, type KubeObject } from '@edict/foundation';
import { addGenerateLabels, addSourceLabels, stringLabels } from './labels';
import type { GeneratingPolicy, ResourceRef } from './types';

/** Who asked for the object: stamped on it as labels. */
export interface Provenance {
  trigger: KubeObject;
  policy: GeneratingPolicy | undefined;
  ruleName: string;
}

/**
 * The object Kyverno creates from a rule's `data`: the data's fields, with the target's name,
 * namespace and apiVersion (the data's `kind` wins when it has one) and the generate labels.
 */
export function objectFromData(data: JsonObject, target: ResourceRef, provenance: Provenance): KubeObject {
  return finishObject(cloneJson(data), target, provenance);
}

/**
 * A copy of a clone source for `target`: the source's fields without what the API server owns
 * (uid, selfLink, creationTimestamp, managedFields, resourceVersion; ownerReferences when the copy
 * lands in another namespace), labelled with its source, then finished like a data object.
 * Kyverno keeps everything else, `status` and annotations included.
 */
export function objectFromClone(source: KubeObject, target: ResourceRef, provenance: Provenance): KubeObject {
  const copy = cloneJson(source);
  const metadata: JsonObject = isObject(copy.metadata) ? copy.metadata : {};
  const labels = stringLabels(copy);
  addSourceLabels(labels, source);
  metadata.labels = labels;
  if ((source.metadata?.namespace ?? '') !== target.namespace) delete metadata.ownerReferences;
  for (const field of ['uid', 'selfLink', 'creationTimestamp', 'managedFields', 'resourceVersion'])
    delete metadata[field];
  copy.metadata = metadata as KubeObject['metadata'];
  return finishObject(copy, target, provenance);
}

/** Sets identity and labels on an object this module owns (it is modified in place). */
function finishObject(object: JsonObject, target: ResourceRef, provenance: Provenance): KubeObject {
  const metadata: JsonObject = isObject(object.metadata) ? object.metadata : {};
  object.metadata = metadata;
  // Kubernetes' setters remove a field set to "" rather than store it.
  setOrRemove(metadata, 'name', target.name);
  setOrRemove(metadata, 'namespace', target.namespace);
  if (typeof object.kind !== 'string' || object.kind === '') setOrRemove(object, 'kind', target.kind);
  setOrRemove(object, 'apiVersion', target.apiVersion);
  const labels = stringLabels(object as KubeObject);
  addGenerateLabels(labels, provenance.trigger, provenance.policy, provenance.ruleName);
  metadata.labels = labels;
  delete metadata.resourceVersion;
  return object as KubeObject;
}

function setOrRemove(object: JsonObject, key: string, value: string): void {
  if (value === '') delete object[key];
  else object[key] = value;
}
