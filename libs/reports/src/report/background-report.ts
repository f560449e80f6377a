/**
 * Builds Kyverno's background scan EphemeralReport / ClusterEphemeralReport for one resource: named
 * after the resource's uid, owned by the resource (it exists: the garbage collector takes the report
 * with it), labelled with source `background-scan`, the resource's identity and hash, and one label
 * per background policy evaluated holding its resourceVersion — also for policies that produced no
 * result, so that the reports controller can drop what those policies said before. The scan time is
 * the `audit.kyverno.io/last-scan-time` annotation.
 */
import { resourceLabels, summarize, type ReportPolicy } from './admission-report';
import {
  ANNOTATION_LAST_SCAN_TIME,
  ANNOTATION_RESOURCE_NAME,
  ANNOTATION_RESOURCE_NAMESPACE,
  ephemeralReportKind,
  LABEL_SOURCE,
  policyLabel,
  REPORTS_API_VERSION,
  SOURCE_BACKGROUND_SCAN,
} from './labels';
import { sortResults } from './policy-report';
import type { EphemeralReportObject, PolicyReportResult, ReportOwner } from './types';

export interface BackgroundReportInput {
  resource: ReportOwner & { namespace?: string };
  resourceHash: string;
  /** Every background policy evaluated on the resource. */
  policies: readonly ReportPolicy[];
  results: readonly PolicyReportResult[];
  scannedAt: Date;
}

export function buildBackgroundReport(input: BackgroundReportInput): EphemeralReportObject {
  const { resource } = input;
  const owner: ReportOwner = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    uid: resource.uid,
  };
  const labels = resourceLabels(SOURCE_BACKGROUND_SCAN, resource, input.resourceHash);
  for (const policy of input.policies) labels[policyLabel(policy)] = policy.resourceVersion ?? '';
  const results = sortResults(input.results);
  return {
    apiVersion: REPORTS_API_VERSION,
    kind: ephemeralReportKind(resource.namespace),
    metadata: {
      name: resource.uid,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
      labels,
      annotations: {
        [ANNOTATION_RESOURCE_NAMESPACE]: resource.namespace ?? '',
        [ANNOTATION_RESOURCE_NAME]: resource.name,
        // RFC 3339 in whole seconds, as Go's time.RFC3339 writes it.
        [ANNOTATION_LAST_SCAN_TIME]: `${input.scannedAt.toISOString().slice(0, 19)}Z`,
      },
      ownerReferences: [{ ...owner }],
    },
    spec: { owner, summary: summarize(results), results },
  };
}

/** Whether an intermediate report comes from a background scan. */
export function isBackgroundReport(report: { metadata?: { labels?: Record<string, string> } }): boolean {
  return report.metadata?.labels?.[LABEL_SOURCE] === SOURCE_BACKGROUND_SCAN;
}
