import { setOwn, type KubeObject } from '@edict/foundation';
import type { GeneratingPolicy } from './types';

/** Labels Kyverno stamps on every generated object; the background controller finds downstream objects by them. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_KYVERNO = 'kyverno';
export const LABEL_POLICY_NAME = 'generate.kyverno.io/policy-name';
export const LABEL_POLICY_NAMESPACE = 'generate.kyverno.io/policy-namespace';
export const LABEL_RULE_NAME = 'generate.kyverno.io/rule-name';
export const LABEL_TRIGGER_GROUP = 'generate.kyverno.io/trigger-group';
export const LABEL_TRIGGER_VERSION = 'generate.kyverno.io/trigger-version';
export const LABEL_TRIGGER_KIND = 'generate.kyverno.io/trigger-kind';
export const LABEL_TRIGGER_NAMESPACE = 'generate.kyverno.io/trigger-namespace';
export const LABEL_TRIGGER_UID = 'generate.kyverno.io/trigger-uid';
/** Clones also record their source, so a change to the source can be synchronized. */
export const LABEL_SOURCE_GROUP = 'generate.kyverno.io/source-group';
export const LABEL_SOURCE_VERSION = 'generate.kyverno.io/source-version';
export const LABEL_SOURCE_KIND = 'generate.kyverno.io/source-kind';
export const LABEL_SOURCE_NAMESPACE = 'generate.kyverno.io/source-namespace';
export const LABEL_SOURCE_NAME = 'generate.kyverno.io/source-name';
/** Kyverno tags the clone source itself with this (empty) label; the copy inherits it. */
export const LABEL_CLONE_SOURCE = 'generate.kyverno.io/clone-source';

const GENERATE_LABEL_PREFIX = 'generate.kyverno.io/';

/** `apps/v1` → group `apps`, version `v1`; `v1` → group ``, version `v1`. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The string labels of an object; like Kubernetes' accessor, labels holding a non-string read as none. */
export function stringLabels(object: KubeObject): Record<string, string> {
  const labels = object.metadata?.labels as unknown;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return {};
  const entries = Object.entries(labels as Record<string, unknown>);
  if (entries.some(([, value]) => typeof value !== 'string')) return {};
  return { ...(labels as Record<string, string>) };
}

/** Adds the managed-by, policy/rule and trigger labels (Kyverno overwrites existing values of these keys). */
export function addGenerateLabels(
  labels: Record<string, string>,
  trigger: KubeObject,
  policy: GeneratingPolicy | undefined,
  ruleName: string,
): void {
  labels[LABEL_MANAGED_BY] = MANAGED_BY_KYVERNO;
  labels[LABEL_POLICY_NAME] = policy?.metadata.name ?? '';
  labels[LABEL_POLICY_NAMESPACE] = policyNamespace(policy);
  labels[LABEL_RULE_NAME] = ruleName;
  const { group, version } = splitApiVersion(trigger.apiVersion ?? '');
  labels[LABEL_TRIGGER_VERSION] = version;
  labels[LABEL_TRIGGER_GROUP] = group;
  labels[LABEL_TRIGGER_KIND] = trigger.kind ?? '';
  labels[LABEL_TRIGGER_NAMESPACE] = trigger.metadata?.namespace ?? '';
  labels[LABEL_TRIGGER_UID] = typeof trigger.metadata?.uid === 'string' ? trigger.metadata.uid : '';
}

/** Adds the labels naming a clone's source object. */
export function addSourceLabels(labels: Record<string, string>, source: KubeObject): void {
  const { group, version } = splitApiVersion(source.apiVersion ?? '');
  labels[LABEL_CLONE_SOURCE] = '';
  labels[LABEL_SOURCE_GROUP] = group;
  labels[LABEL_SOURCE_VERSION] = version;
  labels[LABEL_SOURCE_KIND] = source.kind ?? '';
  labels[LABEL_SOURCE_NAMESPACE] = source.metadata?.namespace ?? '';
  labels[LABEL_SOURCE_NAME] = labelValueOf(source.metadata?.name ?? '');
}

/** The longest label value Kubernetes accepts. */
const MAX_LABEL_VALUE = 63;

/**
 * A name as a valid label value: names run to 253 characters, label values to 63 and must end in a
 * letter or digit, so a longer name is cut (as Kyverno cuts the names it puts in labels). Two long
 * names alike in their first 63 characters then share the value: a change to one also
 * resynchronizes the other's copies, which is harmless.
 */
export function labelValueOf(name: string): string {
  return name.length <= MAX_LABEL_VALUE ? name : name.slice(0, MAX_LABEL_VALUE).replace(/[^A-Za-z0-9]+$/, '');
}

function policyNamespace(policy: GeneratingPolicy | undefined): string {
  if (!policy || policy.kind !== 'Policy') return '';
  return policy.metadata.namespace ?? 'default';
}

/**
 * For comparing a generated object with an expected one in CLI tests, as Kyverno's CLI does: drops every
 * `generate.kyverno.io/*` label and sets `app.kubernetes.io/managed-by: kyverno`. Apply it to both sides;
 * returns a new object (the input is not modified).
 */
export function normalizeGeneratedLabels(object: KubeObject): KubeObject {
  const labels: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO };
  for (const [key, value] of Object.entries(stringLabels(object))) {
    if (!key.startsWith(GENERATE_LABEL_PREFIX)) setOwn(labels, key, value);
  }
  return { ...object, metadata: { ...(object.metadata ?? {}), labels } };
}
