/**
 * The EphemeralReport / ClusterEphemeralReport Kyverno's background controller writes about the
 * trigger of a generate or mutate-existing rule it applied (one per processed UpdateRequest): in
 * the trigger's namespace, source `background-scan`, the trigger's identity and hash labels, one
 * label per policy holding its resourceVersion, the trigger as owner reference (it exists: the
 * garbage collector takes the report with it) and as `spec.owner`. It carries no scan time: it
 * reports the rules applied, not a scan, so it replaces no earlier results of its policy.
 *
 * Kyverno names it `<trigger uid>-<random>`; here the suffix is derived from the request, so a
 * repeated write (another leader, a retried request) meets the same report instead of adding one.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '@edict/foundation';
import { ephemeralReport, type ReportPolicy } from './ephemeral-report';
import { SOURCE_BACKGROUND_SCAN, type ReportPolicyKind } from './labels';
import { resourceHash } from './resource-hash';
import type { EphemeralReportObject, PolicyReportResult, ReportOwner } from './types';

export interface UpdateRequestReportInput {
  /** What tells this request apart from others about the trigger (the UpdateRequest's uid or name). */
  requestKey: string;
  trigger: ReportOwner & { namespace?: string };
  /** Kyverno's resource hash of the trigger as the rule saw it (see resourceHash). */
  triggerHash: string;
  policy: ReportPolicy;
  results: readonly PolicyReportResult[];
}

/**
 * The trigger (or target) part of a report: the object's identity and hash. Undefined for an object
 * without a name or uid, which cannot own a report.
 */
export function reportSubject(
  object: KubeObject,
): Pick<UpdateRequestReportInput, 'trigger' | 'triggerHash'> | undefined {
  const { name, namespace, uid } = object.metadata ?? {};
  if (!name || typeof uid !== 'string' || uid === '') return undefined;
  return {
    trigger: {
      apiVersion: object.apiVersion ?? '',
      kind: object.kind ?? '',
      name,
      ...(namespace ? { namespace } : {}),
      uid,
    },
    triggerHash: resourceHash(object),
  };
}

/** The policy part of a report about a compiled CEL policy: its kind, name, namespace and resourceVersion. */
export function celReportPolicy(compiled: {
  readonly kind: ReportPolicyKind;
  readonly name: string;
  readonly namespace?: string;
  readonly policy: { readonly metadata?: { readonly resourceVersion?: unknown } };
}): ReportPolicy {
  const resourceVersion = compiled.policy.metadata?.resourceVersion;
  return {
    kind: compiled.kind,
    name: compiled.name,
    ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
  };
}

/** Characters of the request digest in the report's name (Kyverno's generated suffix has five). */
const SUFFIX_LENGTH = 10;

export function buildUpdateRequestReport(input: UpdateRequestReportInput): EphemeralReportObject {
  const suffix = createHash('sha256').update(input.requestKey).digest('hex').slice(0, SUFFIX_LENGTH);
  return ephemeralReport({
    name: `${input.trigger.uid}-${suffix}`,
    source: SOURCE_BACKGROUND_SCAN,
    resource: input.trigger,
    resourceHash: input.triggerHash,
    policies: [input.policy],
    results: input.results,
    owned: true,
  });
}

/**
 * How Kyverno names an object in the `generated-resources` and `patched-target` result properties:
 * its group/version/kind as Go prints it (`/v1, Kind=Secret`, `apps/v1, Kind=Deployment`), then
 * `Name=` and, when namespaced, `Namespace=`.
 */
export function reportedObject(object: {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}): string {
  const apiVersion = object.apiVersion ?? '';
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  const namespace = object.metadata?.namespace;
  return (
    `${groupVersion}, Kind=${object.kind ?? ''} Name=${object.metadata?.name ?? ''}` +
    (namespace ? ` Namespace=${namespace}` : '')
  );
}
