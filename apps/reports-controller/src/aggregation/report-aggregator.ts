/**
 * Merges one resource's intermediate reports (admission and background scan EphemeralReports) into
 * its PolicyReport (Kyverno's aggregation):
 *  - the resource is read; when it is gone (or its name now holds another uid) the PolicyReport is
 *    deleted, and so are intermediate reports older than the grace period (younger ones may have been
 *    written before their object was stored: they are looked at again later);
 *  - the PolicyReport's results are updated with the intermediate reports' results, oldest report
 *    first, keeping the newest result per policy and rule (admission and background scan results
 *    alike, as Kyverno merges them); a background scan report also drops the older results of the
 *    policies it evaluated (a rule that no longer matches says nothing); results of policies or
 *    rules that no longer exist are dropped; a report left without results is deleted;
 *  - merged intermediate reports are deleted, each only at the resourceVersion that was read.
 * A report naming a policy this controller's cache does not know yet is left for later
 * (within the grace period), so that a result is not dropped for a cache that lags.
 *
 * Nothing is kept between calls. Every write is idempotent and safe when two leaders overlap (leader
 * election does not fence): names are the resource uid, replaces and deletes carry the
 * resourceVersion read, and a 409 is thrown for the caller to retry from a fresh read.
 */
import { isConflict } from '@edict/kube';
import { type ObjectHeader } from '@edict/foundation';
import {
  allowedResults,
  ANNOTATION_LAST_SCAN_TIME,
  buildPolicyReport,
  isBackgroundReport,
  mergeResults,
  policyReportKind,
  samePolicyReport,
  ephemeralReportKind,
  LABEL_RESOURCE_UID,
  policyReportApiVersion,
  REPORTS_API_VERSION,
  type EphemeralReportObject,
  type PolicyReportObject,
  type PolicyReportResult,
  type ReportFormat,
  type ReportOwner,
  type ReportPolicy,
  type ReportResultType,
  type ReportScope,
} from '@edict/reports';
import { policyKeyOfLabel, resultPolicyKey, type KnownPolicy } from './known-policies';
import { listAll, type ObjectRef, type ReportsCluster } from './reports-cluster';

/** The resource whose reports are merged: its namespace (none: cluster-scoped) and uid. */
export interface ResourceKey {
  readonly namespace?: string;
  readonly uid: string;
}

export interface AggregationOutcome {
  /** What happened to the PolicyReport. */
  readonly report: 'created' | 'updated' | 'unchanged' | 'deleted' | 'none';
  /** Admission reports merged (or dropped) and deleted. */
  readonly merged: number;
  /** Set when some intermediate reports are left to be looked at again after this long. */
  readonly retryAfterMs?: number;
}

/** What adopting an intermediate report without the resource's uid did. */
export interface AdoptionOutcome {
  /** `none`: gone, or it names its resource already. */
  readonly report: 'adopted' | 'waiting' | 'deleted' | 'none';
  /** The adopted resource's uid: its reports are to be merged. */
  readonly uid?: string;
  readonly retryAfterMs?: number;
}

export interface AggregatorOptions {
  readonly graceMs: number;
  /** When a report waiting for its policy is looked at again (within the grace period). */
  readonly pendingRetryMs?: number;
  readonly now?: () => number;
  /** Where the per-resource reports are written (Kyverno's --openreportsEnabled); wgpolicyk8s.io by default. */
  readonly format?: ReportFormat;
  /** The result types reports keep (Kyverno's --allowedResults); empty or absent: all. */
  readonly allowedResults?: readonly ReportResultType[];
}

export class ReportAggregator {
  private readonly now: () => number;

  constructor(
    private readonly cluster: ReportsCluster,
    private readonly policy: (key: string) => KnownPolicy | undefined,
    private readonly options: AggregatorOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async reconcile(key: ResourceKey): Promise<AggregationOutcome> {
    const namespace = key.namespace || undefined;
    const ephemeralReports = await this.ephemeralReports(namespace, key.uid);
    const format = this.options.format ?? 'wgpolicyk8s';
    const reportRef: ObjectRef = {
      apiVersion: policyReportApiVersion(format),
      kind: policyReportKind(namespace, format),
      name: key.uid,
      ...(namespace ? { namespace } : {}),
    };
    const existing = (await this.cluster.find(reportRef)) as PolicyReportObject | undefined;
    const target = existing?.scope ?? ephemeralReports[0]?.spec.owner;
    if (!target) return { report: 'none', merged: 0 };
    const resource = await this.cluster.find({
      apiVersion: target.apiVersion,
      kind: target.kind,
      name: target.name,
      ...(namespace ? { namespace } : {}),
    });
    if (!resource || resource.metadata?.uid !== key.uid)
      return this.resourceGone(reportRef, existing, ephemeralReports);

    const ready: EphemeralReportObject[] = [];
    let retryAfterMs: number | undefined;
    for (const report of ephemeralReports) {
      const waiting = report.spec.results.some((result) => !this.policy(resultPolicyKey(result)));
      const left = this.graceLeft(report);
      if (waiting && left > 0)
        retryAfterMs = Math.min(retryAfterMs ?? Infinity, this.options.pendingRetryMs ?? 1_000, left);
      else ready.push(report);
    }
    const results = allowedResults(
      mergeResults(
        withoutRescanned(existing?.results ?? [], ready),
        ready.map((report) => report.spec.results),
      ),
      this.options.allowedResults ?? [],
    ).filter((result) => {
      const known = this.policy(resultPolicyKey(result));
      return known !== undefined && (known.rules === undefined || known.rules.has(result.rule));
    });
    const scope: ReportScope = {
      apiVersion: target.apiVersion,
      kind: target.kind,
      name: target.name,
      ...(namespace ? { namespace } : {}),
      uid: key.uid,
    };
    const report = await this.write(existing, buildPolicyReport(scope, results, this.policiesOf(results), format));
    for (const merged of ready) await this.deleteEphemeralReport(merged);
    return { report, merged: ready.length, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  /**
   * Kyverno's adoption of an intermediate report that names no resource uid (a mutating webhook's
   * report about a CREATE, written before the object had one): the object is looked up by the
   * report's kind, namespace and name; found, its uid goes into the report's uid label, owner and
   * owner reference (the report is then merged as any other); not found, the report is looked at
   * again later, and deleted once older than the grace period.
   */
  async adopt(ref: { readonly namespace?: string; readonly name: string }): Promise<AdoptionOutcome> {
    const namespace = ref.namespace || undefined;
    const report = await this.cluster.find({
      apiVersion: REPORTS_API_VERSION,
      kind: ephemeralReportKind(namespace),
      name: ref.name,
      ...(namespace ? { namespace } : {}),
    });
    if (!report || !isEphemeralReport(report) || report.metadata.labels[LABEL_RESOURCE_UID]) return { report: 'none' };
    const { owner } = report.spec;
    const resource = await this.cluster.find({
      apiVersion: owner.apiVersion,
      kind: owner.kind,
      name: owner.name,
      ...(namespace ? { namespace } : {}),
    });
    const uid = resource?.metadata?.uid;
    if (!uid) {
      const left = this.graceLeft(report);
      if (left > 0) return { report: 'waiting', retryAfterMs: Math.min(this.options.pendingRetryMs ?? 1_000, left) };
      await this.deleteEphemeralReport(report);
      return { report: 'deleted' };
    }
    const adopted: ReportOwner = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid };
    await this.cluster.replace({
      ...report,
      metadata: {
        ...report.metadata,
        labels: { ...report.metadata.labels, [LABEL_RESOURCE_UID]: uid },
        ownerReferences: [adopted],
      },
      spec: { ...report.spec, owner: adopted },
    });
    return { report: 'adopted', uid };
  }

  private async write(
    existing: PolicyReportObject | undefined,
    desired: PolicyReportObject,
  ): Promise<AggregationOutcome['report']> {
    if (desired.results.length === 0) {
      if (!existing) return 'none';
      await this.cluster.delete(refOf(existing), preconditionsOf(existing));
      return 'deleted';
    }
    if (!existing) {
      await this.cluster.create(desired);
      return 'created';
    }
    if (samePolicyReport(existing, desired)) return 'unchanged';
    await this.cluster.replace({
      ...desired,
      metadata: { ...existing.metadata, ...desired.metadata, resourceVersion: existing.metadata.resourceVersion },
    });
    return 'updated';
  }

  private async resourceGone(
    reportRef: ObjectRef,
    existing: PolicyReportObject | undefined,
    ephemeralReports: readonly EphemeralReportObject[],
  ): Promise<AggregationOutcome> {
    if (existing) await this.cluster.delete(reportRef, preconditionsOf(existing));
    let merged = 0;
    let retryAfterMs: number | undefined;
    for (const report of ephemeralReports) {
      const left = this.graceLeft(report);
      if (left > 0) retryAfterMs = Math.min(retryAfterMs ?? Infinity, left);
      else {
        await this.deleteEphemeralReport(report);
        merged += 1;
      }
    }
    return {
      report: existing ? 'deleted' : 'none',
      merged,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }

  /** The resource's intermediate reports, oldest first (creation time, then resourceVersion, then name). */
  private async ephemeralReports(namespace: string | undefined, uid: string): Promise<EphemeralReportObject[]> {
    const reports: EphemeralReportObject[] = [];
    const ref = {
      apiVersion: REPORTS_API_VERSION,
      kind: ephemeralReportKind(namespace),
      ...(namespace ? { namespace } : {}),
    };
    for await (const object of listAll(this.cluster, ref, `${LABEL_RESOURCE_UID}=${uid}`)) {
      if (isEphemeralReport(object)) reports.push(object);
    }
    return reports.sort(byAge);
  }

  private async deleteEphemeralReport(report: EphemeralReportObject): Promise<void> {
    try {
      await this.cluster.delete(refOf(report), preconditionsOf(report));
    } catch (error) {
      // Changed since it was read (another webhook merged into it): the watch brings it back.
      if (!isConflict(error)) throw error;
    }
  }

  private graceLeft(report: EphemeralReportObject): number {
    const created = Date.parse(String(report.metadata.creationTimestamp ?? ''));
    if (Number.isNaN(created)) return 0;
    return created + this.options.graceMs - this.now();
  }

  private policiesOf(results: readonly PolicyReportResult[]): ReportPolicy[] {
    const policies = new Map<string, ReportPolicy>();
    for (const result of results) {
      const key = resultPolicyKey(result);
      const known = this.policy(key);
      if (known && !policies.has(key)) {
        policies.set(key, {
          kind: known.kind,
          name: known.name,
          ...(known.namespace ? { namespace: known.namespace } : {}),
          ...(known.resourceVersion ? { resourceVersion: known.resourceVersion } : {}),
        });
      }
    }
    return [...policies.values()];
  }
}

/** `results` without those a background scan in `reports` has evaluated again since. */
function withoutRescanned(
  results: readonly PolicyReportResult[],
  reports: readonly EphemeralReportObject[],
): PolicyReportResult[] {
  const scannedAt = new Map<string, number>();
  for (const report of reports) {
    if (!isBackgroundReport(report)) continue;
    const seconds = Date.parse(report.metadata.annotations?.[ANNOTATION_LAST_SCAN_TIME] ?? '') / 1000;
    if (Number.isNaN(seconds)) continue;
    for (const label of Object.keys(report.metadata.labels)) {
      const key = policyKeyOfLabel(label, report.metadata.namespace);
      if (key !== undefined) scannedAt.set(key, Math.max(scannedAt.get(key) ?? 0, seconds));
    }
  }
  if (scannedAt.size === 0) return [...results];
  return results.filter((result) => result.timestamp.seconds > (scannedAt.get(resultPolicyKey(result)) ?? -Infinity));
}

function isEphemeralReport(object: ObjectHeader & { spec?: unknown }): object is EphemeralReportObject {
  const spec = object.spec as Partial<EphemeralReportObject['spec']> | undefined;
  return (
    Array.isArray(spec?.results) && typeof spec?.owner?.kind === 'string' && typeof object.metadata?.name === 'string'
  );
}

function refOf(object: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
  };
}

function preconditionsOf(object: { metadata: { resourceVersion?: string; uid?: string } }) {
  return {
    ...(object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {}),
    ...(object.metadata.uid ? { uid: object.metadata.uid } : {}),
  };
}

function byAge(a: EphemeralReportObject, b: EphemeralReportObject): number {
  const created = String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? ''));
  if (created !== 0) return created;
  const left = Number(a.metadata.resourceVersion);
  const right = Number(b.metadata.resourceVersion);
  if (Number.isFinite(left) && Number.isFinite(right) && left !== right) return left - right;
  return a.metadata.name.localeCompare(b.metadata.name);
}
