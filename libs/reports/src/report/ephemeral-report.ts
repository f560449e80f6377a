/**
 * The one shape of Kyverno's intermediate reports (EphemeralReport / ClusterEphemeralReport), whoever
 * writes them: in the resource's namespace (cluster-scoped resources get a ClusterEphemeralReport);
 * labels managed-by, source, the resource's uid, hash and group/version/kind (and gvr when known),
 * one `cpol.kyverno.io/<name>` / `pol.kyverno.io/<name>` label per policy holding its
 * resourceVersion; the resource's namespace and name as annotations; `spec.owner` naming the
 * resource; `spec.results` sorted and their `spec.summary`.
 */
import {
  ANNOTATION_RESOURCE_NAME,
  ANNOTATION_RESOURCE_NAMESPACE,
  ephemeralReportKind,
  fitsLabelValue,
  gvrLabel,
  LABEL_MANAGED_BY,
  LABEL_RESOURCE_GROUP,
  LABEL_RESOURCE_GVR,
  LABEL_RESOURCE_HASH,
  LABEL_RESOURCE_KIND,
  LABEL_RESOURCE_UID,
  LABEL_RESOURCE_VERSION,
  LABEL_SOURCE,
  MANAGED_BY_KYVERNO,
  policyLabel,
  type ReportPolicyKind,
  REPORTS_API_VERSION,
  type GroupVersionResource,
} from './labels';
import { sortResults, summarize } from './results';
import type { EphemeralReportObject, PolicyReportResult, ReportOwner } from './types';

/** A policy whose results are in the report. */
export interface ReportPolicy {
  kind: ReportPolicyKind;
  name: string;
  namespace?: string;
  resourceVersion?: string;
}

export interface EphemeralReportParts {
  name: string;
  /** `admission` or `background-scan`. */
  source: string;
  resource: ReportOwner & { namespace?: string };
  /** Kyverno's resource hash of the object the results are about (see resourceHash). */
  resourceHash: string;
  gvr?: GroupVersionResource;
  policies: readonly ReportPolicy[];
  results: readonly PolicyReportResult[];
  /**
   * Whether the resource is also an owner reference: only when it exists (a dangling owner would
   * let the garbage collector take the report), and then the report goes with it.
   */
  owned: boolean;
  annotations?: Record<string, string>;
}

export function ephemeralReport(parts: EphemeralReportParts): EphemeralReportObject {
  const { resource } = parts;
  const owner: ReportOwner = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    uid: resource.uid,
  };
  const labels = resourceLabels(parts.source, resource, parts.resourceHash, parts.gvr);
  for (const policy of parts.policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const results = sortResults(parts.results);
  return {
    apiVersion: REPORTS_API_VERSION,
    kind: ephemeralReportKind(resource.namespace),
    metadata: {
      name: parts.name,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
      labels,
      annotations: {
        [ANNOTATION_RESOURCE_NAMESPACE]: resource.namespace ?? '',
        [ANNOTATION_RESOURCE_NAME]: resource.name,
        ...parts.annotations,
      },
      ...(parts.owned ? { ownerReferences: [{ ...owner }] } : {}),
    },
    spec: { owner, summary: summarize(results), results },
  };
}

/**
 * The labels every intermediate report carries about its resource; values too long for a label
 * (a long CRD group) are left out: the uid is what the reports controller finds reports by.
 */
export function resourceLabels(
  source: string,
  resource: { apiVersion: string; kind: string; uid: string },
  hash: string,
  gvr?: GroupVersionResource,
): Record<string, string> {
  const slash = resource.apiVersion.indexOf('/');
  const candidates: [string, string][] = [
    [LABEL_MANAGED_BY, MANAGED_BY_KYVERNO],
    [LABEL_SOURCE, source],
    [LABEL_RESOURCE_UID, resource.uid],
    [LABEL_RESOURCE_HASH, hash],
    [LABEL_RESOURCE_GROUP, slash < 0 ? '' : resource.apiVersion.slice(0, slash)],
    [LABEL_RESOURCE_VERSION, resource.apiVersion.slice(slash + 1)],
    [LABEL_RESOURCE_KIND, resource.kind],
  ];
  if (gvr) candidates.push([LABEL_RESOURCE_GVR, gvrLabel(gvr)]);
  return Object.fromEntries(candidates.filter(([, value]) => fitsLabelValue(value)));
}
