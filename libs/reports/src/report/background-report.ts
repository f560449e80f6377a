/**
 * Builds Kyverno's background scan EphemeralReport / ClusterEphemeralReport for one resource: named
 * after the resource's uid, owned by the resource (it exists: the garbage collector takes the report
 * with it), labelled with source `background-scan`, the resource's identity and hash, and one label
 * per background policy evaluated holding its resourceVersion — also for policies that produced no
 * result, so that the reports controller can drop what those policies said before. The scan time is
 * the `audit.kyverno.io/last-scan-time` annotation.
 */
import { ephemeralReport, type ReportPolicy } from './ephemeral-report';
import { ANNOTATION_LAST_SCAN_TIME, LABEL_SOURCE, SOURCE_BACKGROUND_SCAN } from './labels';
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
  return ephemeralReport({
    name: input.resource.uid,
    source: SOURCE_BACKGROUND_SCAN,
    resource: input.resource,
    resourceHash: input.resourceHash,
    policies: input.policies,
    results: input.results,
    owned: true,
    // RFC 3339 in whole seconds, as Go's time.RFC3339 writes it.
    annotations: { [ANNOTATION_LAST_SCAN_TIME]: `${input.scannedAt.toISOString().slice(0, 19)}Z` },
  });
}

/** Whether an intermediate report comes from a background scan. */
export function isBackgroundReport(report: { metadata?: { labels?: Record<string, string> } }): boolean {
  return report.metadata?.labels?.[LABEL_SOURCE] === SOURCE_BACKGROUND_SCAN;
}
