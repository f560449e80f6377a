/**
 * A GeneratingPolicy's downstream objects, found by the labels its generation stamps on them
 * (libs/cel-policies/src/generating/downstream.ts: managed-by, policy name, trigger name,
 * namespace, uid, group, version, kind, and the source uid of a clone), as Kyverno's watch
 * manager tells them apart. A NamespacedGeneratingPolicy generates in its namespace only, so
 * only objects there are its own: a label elsewhere is not its doing and is left alone.
 */
import { LABEL_SOURCE_UID, LABEL_TRIGGER_NAME } from '@edict/cel-policies';
import {
  LABEL_MANAGED_BY,
  LABEL_POLICY_NAME,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_TRIGGER_VERSION,
  MANAGED_BY_KYVERNO,
} from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { ObjectRef } from '../update-requests/cluster-objects';

/** Which GeneratingPolicy: a NamespacedGeneratingPolicy has a namespace. */
export interface GpolRef {
  readonly name: string;
  readonly namespace?: string;
}

/** A downstream object's trigger, from its labels. */
export interface TriggerRef extends ObjectRef {
  readonly uid: string;
}

/** The key Kyverno names a GeneratingPolicy by (`namespace/name` for a namespaced one). */
export function gpolKey(policy: GpolRef): string {
  return policy.namespace ? `${policy.namespace}/${policy.name}` : policy.name;
}

/** The label selector of what `policy` generated (for `triggerUid` only, when given). */
export function gpolDownstreamSelector(policy: GpolRef, triggerUid?: string): string {
  return [
    `${LABEL_MANAGED_BY}=${MANAGED_BY_KYVERNO}`,
    `${LABEL_POLICY_NAME}=${policy.name}`,
    ...(triggerUid ? [`${LABEL_TRIGGER_UID}=${triggerUid}`] : []),
  ].join(',');
}

/** The label selector of the copies of a clone source. */
export function cloneSelector(sourceUid: string): string {
  return `${LABEL_MANAGED_BY}=${MANAGED_BY_KYVERNO},${LABEL_SOURCE_UID}=${sourceUid}`;
}

/** Whether the object carries a GeneratingPolicy's downstream labels (a classic rule's have no trigger name). */
export function isGpolDownstream(object: KubeObject): boolean {
  const labels = object.metadata?.labels ?? {};
  return labels[LABEL_MANAGED_BY] === MANAGED_BY_KYVERNO && LABEL_POLICY_NAME in labels && LABEL_TRIGGER_NAME in labels;
}

/** Whether `object` is `policy`'s downstream (by its labels, and inside a namespaced policy's namespace). */
export function ownedBy(object: KubeObject, policy: GpolRef): boolean {
  if (!isGpolDownstream(object)) return false;
  if (object.metadata?.labels?.[LABEL_POLICY_NAME] !== policy.name) return false;
  return !policy.namespace || object.metadata?.namespace === policy.namespace;
}

/** The policies `object` may belong to, by its labels: the cluster-wide one and the one of its namespace. */
export function candidateOwners(object: KubeObject): GpolRef[] {
  const name = object.metadata?.labels?.[LABEL_POLICY_NAME];
  if (!name || !isGpolDownstream(object)) return [];
  const namespace = object.metadata?.namespace;
  return namespace ? [{ name }, { name, namespace }] : [{ name }];
}

/** Whether the object is a copy of a clone source (Kyverno keeps these when the policy goes). */
export function isClone(object: KubeObject): boolean {
  return LABEL_SOURCE_UID in (object.metadata?.labels ?? {});
}

/** The trigger named by a downstream object's labels; undefined when they do not name one. */
export function triggerOf(object: KubeObject): TriggerRef | undefined {
  const labels = object.metadata?.labels ?? {};
  const version = labels[LABEL_TRIGGER_VERSION] ?? '';
  const kind = labels[LABEL_TRIGGER_KIND] ?? '';
  const name = labels[LABEL_TRIGGER_NAME] ?? '';
  const uid = labels[LABEL_TRIGGER_UID] ?? '';
  if (!version || !kind || !name || !uid) return undefined;
  const group = labels[LABEL_TRIGGER_GROUP] ?? '';
  const namespace = labels[LABEL_TRIGGER_NAMESPACE] ?? '';
  return {
    apiVersion: group ? `${group}/${version}` : version,
    kind,
    name,
    uid,
    ...(namespace ? { namespace } : {}),
  };
}

/** The identity of an object by type, namespace and name. */
export function objectKey(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/** The type of an object, as the watchers key it. */
export function typeKey(object: Pick<KubeObject, 'apiVersion' | 'kind'>): string {
  return `${object.apiVersion}/${object.kind}`;
}
