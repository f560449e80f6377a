/** The shapes of Kyverno's reports.kyverno.io/v1 (Cluster)EphemeralReport and wgpolicyk8s.io PolicyReport, as JSON. */
import type { PolicyReportResult } from '@edict/engine';

/** A result row is the engine's (one builder for the controllers and the CLI). */
export type { PolicyReportResult };

export interface PolicyReportSummary {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

/** metav1.OwnerReference: the resource the report is about. */
export interface ReportOwner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

export interface EphemeralReportObject {
  apiVersion: 'reports.kyverno.io/v1';
  kind: 'EphemeralReport' | 'ClusterEphemeralReport';
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: (ReportOwner & { controller?: boolean })[];
    [key: string]: unknown;
  };
  spec: {
    owner: ReportOwner;
    summary: PolicyReportSummary;
    results: PolicyReportResult[];
  };
  [key: string]: unknown;
}

/** The resource a PolicyReport is about (a corev1.ObjectReference). */
export interface ReportScope {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
}

/**
 * A per-resource report: wgpolicyk8s.io/v1alpha2 PolicyReport / ClusterPolicyReport, or, with Kyverno's
 * `--openreportsEnabled`, openreports.io/v1alpha1 Report / ClusterReport (the same fields).
 */
export interface PolicyReportObject {
  apiVersion: 'wgpolicyk8s.io/v1alpha2' | 'openreports.io/v1alpha1';
  kind: 'PolicyReport' | 'ClusterPolicyReport' | 'Report' | 'ClusterReport';
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels: Record<string, string>;
    ownerReferences?: ReportOwner[];
    [key: string]: unknown;
  };
  scope: ReportScope;
  summary: PolicyReportSummary;
  results: PolicyReportResult[];
  [key: string]: unknown;
}
