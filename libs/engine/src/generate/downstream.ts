/**
 * Reading Kyverno's generate labels back, for synchronize: which rule and trigger a downstream
 * object belongs to, which objects were cloned from a source, which objects a trigger's rule
 * generated, and the kinds a rule writes.
 */
import type { KubeObject } from '@edict/foundation';
import type { Rule } from '../policy/types';
import {
  LABEL_CLONE_SOURCE,
  LABEL_MANAGED_BY,
  LABEL_POLICY_NAME,
  LABEL_POLICY_NAMESPACE,
  LABEL_RULE_NAME,
  LABEL_SOURCE_GROUP,
  LABEL_SOURCE_KIND,
  LABEL_SOURCE_NAME,
  LABEL_SOURCE_NAMESPACE,
  LABEL_SOURCE_VERSION,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_TRIGGER_VERSION,
  labelValueOf,
  MANAGED_BY_KYVERNO,
  splitApiVersion,
  stringLabels,
} from './labels';

/** A trigger as a downstream object's labels name it (Kyverno's ResourceSpec: no name, the uid instead). */
export interface LabelledTrigger {
  apiVersion: string;
  kind: string;
  namespace: string;
  uid: string;
}

/** The rule and trigger a generated object came from. */
export interface GeneratedOrigin {
  policyName: string;
  /** Empty for a ClusterPolicy. */
  policyNamespace: string;
  rule: string;
  trigger: LabelledTrigger;
}

/** Kyverno's test for admission of a non-trigger: a clone source (the label, any value) or a generated object. */
export function concernsGenerate(object: KubeObject | undefined): boolean {
  if (!object) return false;
  const labels = stringLabels(object);
  return LABEL_CLONE_SOURCE in labels || (labels[LABEL_POLICY_NAME] ?? '') !== '';
}

/** Whether Kyverno generated the object (`app.kubernetes.io/managed-by: kyverno`). */
export function isManagedByKyverno(object: KubeObject): boolean {
  return stringLabels(object)[LABEL_MANAGED_BY] === MANAGED_BY_KYVERNO;
}

/** The rule and trigger a generated object names in its labels; undefined when it names no policy. */
export function generatedOrigin(object: KubeObject): GeneratedOrigin | undefined {
  const labels = stringLabels(object);
  const policyName = labels[LABEL_POLICY_NAME] ?? '';
  if (policyName === '') return undefined;
  const group = labels[LABEL_TRIGGER_GROUP] ?? '';
  const version = labels[LABEL_TRIGGER_VERSION] ?? '';
  return {
    policyName,
    policyNamespace: labels[LABEL_POLICY_NAMESPACE] ?? '',
    rule: labels[LABEL_RULE_NAME] ?? '',
    trigger: {
      apiVersion: group ? `${group}/${version}` : version,
      kind: labels[LABEL_TRIGGER_KIND] ?? '',
      namespace: labels[LABEL_TRIGGER_NAMESPACE] ?? '',
      uid: labels[LABEL_TRIGGER_UID] ?? '',
    },
  };
}

/** The labels every object cloned from `source` carries. */
export function clonedFromSelector(source: KubeObject): Record<string, string> {
  const { group, version } = splitApiVersion(source.apiVersion ?? '');
  return {
    [LABEL_SOURCE_GROUP]: group,
    [LABEL_SOURCE_VERSION]: version,
    [LABEL_SOURCE_KIND]: source.kind ?? '',
    [LABEL_SOURCE_NAMESPACE]: source.metadata?.namespace ?? '',
    [LABEL_SOURCE_NAME]: labelValueOf(source.metadata?.name ?? ''),
  };
}

/**
 * The labels of what a policy generated for one trigger, as Kyverno selects the downstream to
 * delete when the trigger goes (any rule of the policy: Kyverno leaves the rule out too).
 */
export function generatedForTriggerSelector(
  policy: { name: string; namespace?: string },
  trigger: { apiVersion?: string; kind?: string; namespace?: string; uid?: string },
): Record<string, string> {
  const { group, version } = splitApiVersion(trigger.apiVersion ?? '');
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO,
    [LABEL_POLICY_NAME]: policy.name,
    [LABEL_POLICY_NAMESPACE]: policy.namespace ?? '',
    [LABEL_TRIGGER_UID]: trigger.uid ?? '',
    [LABEL_TRIGGER_NAMESPACE]: trigger.namespace ?? '',
    [LABEL_TRIGGER_KIND]: trigger.kind ?? '',
    [LABEL_TRIGGER_GROUP]: group,
    [LABEL_TRIGGER_VERSION]: version,
  };
}

/**
 * The types a generate rule writes, as Kyverno looks its downstream up: the pattern's
 * apiVersion/kind (the first foreach entry's for foreach rules), or each cloneList kind
 * (`v1/Secret`, `apps/v1/Deployment`; a bare kind has an empty apiVersion).
 */
export function generatedTypes(rule: Rule): { apiVersion: string; kind: string }[] {
  const generation = rule.generate;
  if (!generation) return [];
  const pattern = generation.foreach?.[0] ?? generation;
  if (typeof pattern.kind === 'string' && pattern.kind !== '') {
    return [{ apiVersion: pattern.apiVersion ?? '', kind: pattern.kind }];
  }
  return (pattern.cloneList?.kinds ?? [])
    .filter((kind): kind is string => typeof kind === 'string' && kind !== '')
    .map((kind) => {
      const slash = kind.lastIndexOf('/');
      return slash < 0 ? { apiVersion: '', kind } : { apiVersion: kind.slice(0, slash), kind: kind.slice(slash + 1) };
    });
}
