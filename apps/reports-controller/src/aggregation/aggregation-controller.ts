/**
 * Leader-only: merges admission reports into PolicyReports. What it watches is metadata only (name,
 * namespace, resource uid label) of EphemeralReports and ClusterEphemeralReports; each event queues
 * the resource (`namespace/uid`), and the aggregator reads what it needs when it runs. When a
 * policy's spec changes (its generation: status writes do not count) or it goes, the reports
 * labelled with it are queued so that its stale results are dropped;
 * on taking the lead, reports naming policies that changed meanwhile are queued too. Nothing else
 * is kept in memory.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Informer, KubeResources, metadataOnly, resourceListWatch, type ResourceRef } from '@edict/kube';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { WorkQueue } from '@edict/work-queue';
import { PolicyCache } from '@edict/policy';
import { CEL_POLICY_SOURCE, onCelPoliciesChange, type CelPolicySource } from '@edict/controller-runtime';
import {
  EPHEMERAL_REPORT_KIND,
  CLUSTER_EPHEMERAL_REPORT_KIND,
  LABEL_MANAGED_BY,
  LABEL_RESOURCE_UID,
  MANAGED_BY_KYVERNO,
  policyReportApiVersion,
  policyReportKind,
  REPORTS_API_VERSION,
  type ReportFormat,
} from '@edict/reports';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';
import { ReportsControllerMetrics } from '../metrics/reports-controller-metrics';
import {
  changedPolicies,
  knownCelPolicies,
  knownPolicy,
  policyKeyOfLabel,
  policyLabelOf,
  policyVersions,
} from './known-policies';
import { ReportAggregator, type ResourceKey } from './report-aggregator';
import { KubeNativePolicySource } from '../native-policies/native-policy-source';
import { knownNativePolicies, withNativePolicies } from './native-known-policies';
import { kubeReportsCluster, listAll, type ReportsCluster } from './reports-cluster';

/** Queue keys of reports to adopt (`adopt:namespace/name`); the others are `namespace/uid`. */
const ADOPT_PREFIX = 'adopt:';

/** Failed merges of one resource before it is left until its reports change again. */
const MAX_ATTEMPTS = 10;
const RETRY_BASE_MS = 100;
const MAX_RETRY_DELAY_MS = 30_000;

/** The per-resource report types in `format`: namespaced first, then cluster-scoped. */
function reportTypes(format: ReportFormat): readonly [ResourceRef, ResourceRef] {
  const apiVersion = policyReportApiVersion(format);
  return [
    { apiVersion, kind: policyReportKind('namespaced', format) },
    { apiVersion, kind: policyReportKind(undefined, format) },
  ];
}

@Injectable()
@LeaderProvider()
export class AggregationController implements LeaderAware {
  private readonly logger = new Logger('Aggregation');
  private readonly cluster: ReportsCluster;
  private readonly aggregator: ReportAggregator;
  private queue?: WorkQueue;
  private readonly attempts = new Map<string, number>();
  private versions = new Map<string, string>();
  private readonly reportTypes: readonly [ResourceRef, ResourceRef];

  constructor(
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    private readonly resources: KubeResources,
    private readonly cache: PolicyCache,
    private readonly metrics: ReportsControllerMetrics,
    @Inject(CEL_POLICY_SOURCE) private readonly celPolicies: CelPolicySource,
    private readonly nativePolicies: KubeNativePolicySource,
  ) {
    this.cluster = kubeReportsCluster(resources);
    const format: ReportFormat = config.openreportsEnabled ? 'openreports' : 'wgpolicyk8s';
    this.reportTypes = reportTypes(format);
    const known = (key: string) => knownPolicy(cache.snapshot(), key, this.reportedPolicies());
    this.aggregator = new ReportAggregator(this.cluster, known, {
      graceMs: config.admissionReportGraceMs,
      format,
      allowedResults: config.allowedResults,
    });
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    // Kyverno's --aggregateReports=false: no aggregation controller runs at all.
    if (!this.config.aggregateReports) return;
    const queue = new WorkQueue((key) => this.handle(key), this.config.aggregationWorkers);
    this.queue = queue;
    const informers = [EPHEMERAL_REPORT_KIND, CLUSTER_EPHEMERAL_REPORT_KIND].map((kind) => this.admissionReports(kind));
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // Policies first: results of a policy the cache does not know yet would wait for nothing.
    await Promise.race([this.cache.waitForSync(), stopped]);
    const releaseNative = await this.nativePolicies.acquire();
    let unsubscribe: () => void = () => undefined;
    if (!signal.aborted) {
      for (const informer of informers) informer.start();
      this.versions = policyVersions(this.cache.snapshot(), this.reportedPolicies());
      const classic = this.cache.onChange(() => this.policiesChanged());
      const cel = onCelPoliciesChange(this.celPolicies, () => this.policiesChanged());
      const native = this.nativePolicies.onChange(() => this.policiesChanged());
      unsubscribe = () => {
        classic();
        cel();
        native();
      };
      void this.queueStaleReports(signal);
    }
    await stopped;
    unsubscribe();
    await releaseNative();
    await Promise.all(informers.map((informer) => informer.stop()));
    await queue.stop();
    this.attempts.clear();
    this.metrics.queueDepth.set(0);
  }

  /** Resources waiting or being merged (0 when not leading). */
  depth(): number {
    return this.queue?.depth ?? 0;
  }

  private admissionReports(kind: string): Informer<KubeObject> {
    const informer = new Informer<KubeObject>(
      metadataOnly(
        resourceListWatch(this.resources, {
          apiVersion: REPORTS_API_VERSION,
          kind,
          watchTimeoutSeconds: this.config.watchTimeoutSeconds,
        }),
        [LABEL_RESOURCE_UID],
      ),
      { name: `${REPORTS_API_VERSION}/${kind}`, logger: { warn: (message) => this.logger.warn(message) } },
    );
    const queueOwner = (report: KubeObject) => {
      const uid = report.metadata?.labels?.[LABEL_RESOURCE_UID];
      if (uid) this.enqueue({ namespace: report.metadata?.namespace, uid });
      else if (report.metadata?.name) this.queueAdoption(report.metadata.namespace, report.metadata.name);
    };
    informer.on('add', queueOwner);
    informer.on('update', queueOwner);
    return informer;
  }

  /** Kyverno's CEL policies and the native policies that opted into reports. */
  private reportedPolicies() {
    return withNativePolicies(knownCelPolicies(this.celPolicies), knownNativePolicies(this.nativePolicies.snapshot()));
  }

  private policiesChanged(): void {
    const versions = policyVersions(this.cache.snapshot(), this.reportedPolicies());
    const changed = changedPolicies(this.versions, versions);
    this.versions = versions;
    for (const key of changed) void this.queueReportsOf(key);
  }

  /** Queues every report carrying the policy's label. */
  private async queueReportsOf(policyKey: string): Promise<void> {
    const { label, namespace } = policyLabelOf(policyKey);
    try {
      // A Policy's results are only in its namespace's PolicyReports.
      const [namespaced, cluster] = this.reportTypes;
      const types = namespace ? [{ ...namespaced, namespace }] : [namespaced, cluster];
      for (const type of types) {
        for await (const report of listAll(this.cluster, type, label)) this.enqueueReport(report);
      }
    } catch (error) {
      this.logger.warn(`listing the reports of policy ${policyKey}: ${errorMessage(error)}`);
    }
  }

  /** On taking the lead: queues reports naming a policy that is gone or at another resourceVersion. */
  private async queueStaleReports(signal: AbortSignal): Promise<void> {
    const snapshot = this.cache.snapshot();
    const celPolicies = this.reportedPolicies();
    try {
      for (const type of this.reportTypes) {
        for await (const report of listAll(this.cluster, type, `${LABEL_MANAGED_BY}=${MANAGED_BY_KYVERNO}`)) {
          if (signal.aborted) return;
          const namespace = report.metadata?.namespace;
          const stale = Object.entries(report.metadata?.labels ?? {}).some(([label, version]) => {
            const key = policyKeyOfLabel(label, namespace);
            return key !== undefined && knownPolicy(snapshot, key, celPolicies)?.resourceVersion !== version;
          });
          if (stale) this.enqueueReport(report);
        }
      }
    } catch (error) {
      this.logger.warn(`looking for stale PolicyReports: ${errorMessage(error)}`);
    }
  }

  private enqueueReport(report: KubeObject): void {
    const uid = report.metadata?.name;
    if (uid) this.enqueue({ namespace: report.metadata?.namespace, uid });
  }

  private enqueue(key: ResourceKey): void {
    this.queue?.add(`${key.namespace ?? ''}/${key.uid}`);
    this.metrics.queueDepth.set(this.depth());
  }

  /** An intermediate report naming no resource uid yet: to be adopted (ReportAggregator.adopt). */
  private queueAdoption(namespace: string | undefined, name: string): void {
    this.queue?.add(`${ADOPT_PREFIX}${namespace ?? ''}/${name}`);
    this.metrics.queueDepth.set(this.depth());
  }

  private async handle(queued: string): Promise<void> {
    const adoption = queued.startsWith(ADOPT_PREFIX);
    const item = adoption ? queued.slice(ADOPT_PREFIX.length) : queued;
    const slash = item.indexOf('/');
    const namespace = item.slice(0, slash) || undefined;
    try {
      if (adoption) {
        const adopted = await this.aggregator.adopt({ namespace, name: item.slice(slash + 1) });
        this.attempts.delete(queued);
        if (adopted.uid) this.enqueue({ namespace, uid: adopted.uid });
        if (adopted.retryAfterMs !== undefined) this.queue?.addAfter(queued, adopted.retryAfterMs);
        return;
      }
      const outcome = await this.aggregator.reconcile({ namespace, uid: item.slice(slash + 1) });
      this.metrics.reconciled(outcome);
      this.attempts.delete(queued);
      if (outcome.retryAfterMs !== undefined) this.queue?.addAfter(queued, outcome.retryAfterMs);
    } catch (error) {
      const attempt = (this.attempts.get(queued) ?? 0) + 1;
      if (attempt >= MAX_ATTEMPTS) {
        this.attempts.delete(queued);
        this.metrics.dropped();
        this.logger.error(`reports of ${queued}: giving up after ${attempt} attempts: ${errorMessage(error)}`);
        return;
      }
      this.attempts.set(queued, attempt);
      this.metrics.requeued(attempt);
      this.logger.debug(`reports of ${queued}: ${errorMessage(error)}; retrying`);
      this.queue?.addAfter(queued, Math.min(RETRY_BASE_MS * 2 ** attempt, MAX_RETRY_DELAY_MS));
    } finally {
      this.metrics.queueDepth.set(this.depth());
    }
  }
}
