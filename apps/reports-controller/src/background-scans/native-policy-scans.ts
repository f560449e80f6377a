/**
 * What a background scan runs of Kubernetes' own admission policies on one resource (Kyverno's VAP
 * and MAP branches of its background scan): the reportable ValidatingAdmissionPolicies and
 * MutatingAdmissionPolicies whose matchConstraints' resource rules can name the resource's group,
 * version and plural (the evaluation decides the rest), their results as PolicyReport rows with
 * Kyverno's sources (`ValidatingAdmissionPolicy`, `MutatingAdmissionPolicy`), the policy's name as
 * policy and rule, the `process: background scan` property and the binding (`binding` for a VAP's,
 * `mapBinding` for a MAP's), and the report labels Kyverno sets: each policy and each of its bindings
 * with its resourceVersion.
 */
import { policyReportResult, type Policy, type PolicyReportResult, type RuleResponse } from '@edict/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { EventInput } from '@edict/kube';
import type { AdmissionAttributes, NamedRuleWithOperations, ParamSource } from '@edict/native-policies';
import type { ReportPolicy, ReportPolicyKind } from '@edict/reports';
import type { NativePolicySnapshot, NativePolicySource } from '../native-policies/native-policy-source';
import { namesResource, type ScannedResource } from './background-validating-policies';
import {
  scanMutatingAdmissionPolicy,
  scanValidatingAdmissionPolicy,
  type NativeScanOutcome,
  type NativeScanStatus,
} from './native-policy-evaluation';

export const VALIDATING_ADMISSION_POLICY_SOURCE = 'ValidatingAdmissionPolicy';
export const MUTATING_ADMISSION_POLICY_SOURCE = 'MutatingAdmissionPolicy';

/** The native policies that may apply to one resource. */
export interface NativeSelection {
  readonly validating: readonly JsonObject[];
  readonly mutating: readonly JsonObject[];
  readonly snapshot: NativePolicySnapshot;
  /** Their versions and their bindings': what a resource's scan memory compares. */
  readonly signature: string;
}

export interface NativeScanResult {
  readonly results: PolicyReportResult[];
  /** The policies and bindings the report is labelled with. */
  readonly policies: ReportPolicy[];
  /** Kyverno's PolicyViolation Events for results that neither passed nor were skipped. */
  readonly events: EventInput[];
}

export interface NativePolicyScans {
  /** undefined when no native policy can apply to the resource type. */
  select(resource: ScannedResource): NativeSelection | undefined;
  /** Whether some native policy's rules name the type (a type worth watching). */
  names(resource: ScannedResource): boolean;
  evaluate(
    selection: NativeSelection,
    object: KubeObject,
    resource: ScannedResource,
    namespaceObject: KubeObject | null,
    scannedAt: Date,
  ): Promise<NativeScanResult>;
}

export function nativePolicyScans(source: NativePolicySource, params?: ParamSource): NativePolicyScans {
  const selections = new WeakMap<NativePolicySnapshot, Map<string, NativeSelection | undefined>>();
  const select = (resource: ScannedResource): NativeSelection | undefined => {
    const snapshot = source.snapshot();
    let memo = selections.get(snapshot);
    if (!memo) selections.set(snapshot, (memo = new Map()));
    const key = `${resource.group}/${resource.version}/${resource.resource}`;
    if (memo.has(key)) return memo.get(key);
    const validating = snapshot.validating.filter((policy) => rulesName(policy, resource));
    const mutating = snapshot.mutating.filter((policy) => rulesName(policy, resource));
    const selection =
      validating.length + mutating.length === 0
        ? undefined
        : { validating, mutating, snapshot, signature: signatureOf(validating, mutating, snapshot) };
    memo.set(key, selection);
    return selection;
  };
  return {
    select,
    names: (resource) => select(resource) !== undefined,
    evaluate: async (selection, object, resource, namespaceObject, scannedAt) => {
      const input = {
        attributes: createOf(object, resource),
        namespaceObject: (namespaceObject as JsonObject | null) ?? null,
        ...(params ? { params } : {}),
      };
      const results: PolicyReportResult[] = [];
      const policies: ReportPolicy[] = [];
      const events: EventInput[] = [];
      const { snapshot } = selection;
      for (const policy of selection.validating) {
        const bindings = bindingsOf(policy, snapshot.validatingBindings);
        policies.push(...reported(policy, 'ValidatingAdmissionPolicy', bindings, 'ValidatingAdmissionPolicyBinding'));
        const outcome = await scanValidatingAdmissionPolicy(policy, bindings, input);
        if (!outcome) continue;
        results.push(nativeReportResult(VALIDATING_ADMISSION_POLICY_SOURCE, policy, outcome, scannedAt));
        events.push(...nativeScanEvents(policy, 'ValidatingAdmissionPolicy', outcome, object));
      }
      for (const policy of selection.mutating) {
        const bindings = bindingsOf(policy, snapshot.mutatingBindings);
        policies.push(...reported(policy, 'MutatingAdmissionPolicy', bindings, 'MutatingAdmissionPolicyBinding'));
        const outcome = await scanMutatingAdmissionPolicy(policy, bindings, input);
        if (!outcome) continue;
        results.push(nativeReportResult(MUTATING_ADMISSION_POLICY_SOURCE, policy, outcome, scannedAt));
        events.push(...nativeScanEvents(policy, 'MutatingAdmissionPolicy', outcome, object));
      }
      return { results, policies, events };
    },
  };
}

/**
 * One native policy's outcome as a report row (Kyverno's ToPolicyReportResult for a VAP or MAP):
 * category, severity and `scored` from the policy's annotations (an unscored fail is a warn).
 */
export function nativeReportResult(
  source: string,
  policy: JsonObject,
  outcome: NativeScanOutcome,
  now: Date,
): PolicyReportResult {
  const name = nameOf(policy);
  const properties: Record<string, string> = { process: 'background scan' };
  if (outcome.binding !== undefined) {
    properties[source === MUTATING_ADMISSION_POLICY_SOURCE ? 'mapBinding' : 'binding'] = outcome.binding;
  }
  const rule: RuleResponse = {
    name,
    type: source === MUTATING_ADMISSION_POLICY_SOURCE ? 'Mutation' : 'Validation',
    status: outcome.status satisfies NativeScanStatus,
    message: outcome.message,
    properties,
  };
  const metadata = (policy.metadata ?? {}) as unknown as Policy['metadata'];
  const row = policyReportResult({ key: name, policy: { metadata } }, rule, now);
  row.source = source;
  return row;
}

/**
 * Kyverno's background scan Events for a native policy's result that neither passed nor was
 * skipped: a PolicyViolation on the resource and one on the policy (related to the resource), worded
 * as for Kyverno's own policies (see scan-events), the rule being the policy's name.
 */
export function nativeScanEvents(
  policy: JsonObject,
  kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy',
  outcome: NativeScanOutcome,
  object: KubeObject,
): EventInput[] {
  if (outcome.status === 'pass' || outcome.status === 'skip') return [];
  const name = nameOf(policy);
  const metadata = object.metadata ?? {};
  const resource = {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    name: metadata.name ?? '',
    ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    ...(metadata.uid ? { uid: metadata.uid } : {}),
  };
  const policyUid = (policy.metadata as { uid?: unknown } | undefined)?.uid;
  const regardingPolicy = {
    apiVersion: typeof policy.apiVersion === 'string' ? policy.apiVersion : 'admissionregistration.k8s.io/v1',
    kind,
    name,
    ...(typeof policyUid === 'string' && policyUid ? { uid: policyUid } : {}),
  };
  const resourceText = resource.namespace
    ? `${resource.kind} ${resource.namespace}/${resource.name}`
    : `${resource.kind} ${resource.name}`;
  const violation = { type: 'Warning' as const, reason: 'PolicyViolation', action: 'Resource Passed' };
  return [
    { ...violation, regarding: resource, note: `policy ${name}/${name} ${outcome.status}: ${outcome.message}` },
    {
      ...violation,
      regarding: regardingPolicy,
      related: resource,
      note: `${resourceText}: [${name}] ${outcome.status}${outcome.message ? `; ${outcome.message}` : ''}`,
    },
  ];
}

/** The background scan's request for an existing object: a CREATE of it, by no user. */
function createOf(object: KubeObject, resource: ScannedResource): AdmissionAttributes {
  const apiVersion = object.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const metadata = object.metadata ?? {};
  const kind = {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: apiVersion.slice(slash + 1),
    kind: object.kind ?? '',
  };
  return {
    operation: 'CREATE',
    kind,
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    subresource: '',
    name: metadata.name ?? '',
    namespace: metadata.namespace ?? '',
    object: object as JsonObject,
    oldObject: null,
  };
}

function rulesName(policy: JsonObject, resource: ScannedResource): boolean {
  const spec = (policy.spec ?? {}) as { matchConstraints?: { resourceRules?: NamedRuleWithOperations[] } };
  const rules = spec.matchConstraints?.resourceRules;
  return Array.isArray(rules) && rules.some((rule) => namesResource(rule, resource));
}

function bindingsOf(policy: JsonObject, bindings: readonly JsonObject[]): JsonObject[] {
  const name = nameOf(policy);
  return bindings.filter((binding) => (binding.spec as { policyName?: unknown } | undefined)?.policyName === name);
}

function reported(
  policy: JsonObject,
  kind: ReportPolicyKind,
  bindings: readonly JsonObject[],
  bindingKind: ReportPolicyKind,
): ReportPolicy[] {
  return [policy, ...bindings].map((object, index) => {
    const resourceVersion = (object.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
    return {
      kind: index === 0 ? kind : bindingKind,
      name: nameOf(object),
      ...(typeof resourceVersion === 'string' && resourceVersion ? { resourceVersion } : {}),
    };
  });
}

function signatureOf(
  validating: readonly JsonObject[],
  mutating: readonly JsonObject[],
  snapshot: NativePolicySnapshot,
): string {
  const versions = (objects: readonly JsonObject[]) =>
    objects.map(
      (object) =>
        `${nameOf(object)}=${String((object.metadata as { resourceVersion?: unknown })?.resourceVersion ?? '')}`,
    );
  return [
    ...versions(validating).map((entry) => `vap:${entry}`),
    ...validating
      .flatMap((policy) => versions(bindingsOf(policy, snapshot.validatingBindings)))
      .map((e) => `vapb:${e}`),
    ...versions(mutating).map((entry) => `map:${entry}`),
    ...mutating.flatMap((policy) => versions(bindingsOf(policy, snapshot.mutatingBindings))).map((e) => `mapb:${e}`),
  ].join(',');
}

function nameOf(object: JsonObject): string {
  const metadata = object.metadata as { name?: unknown } | undefined;
  return typeof metadata?.name === 'string' ? metadata.name : '';
}
