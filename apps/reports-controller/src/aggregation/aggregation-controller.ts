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
  CLUSTER_POLICY_REPORT_KIND,
  LABEL_MANAGED_BY,
  LABEL_RESOURCE_UID,
  MANAGED_BY_KYVERNO,
  POLICY_REPORT_API_VERSION,
  POLICY_REPORT_KIND,
  REPORTS_API_VERSION,
} from '@edict/reports';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';
import { ReportsControllerMetrics } from '../metrics/reports-controller-metrics';
import {
  changedPolicies,
  knownPolicy,
  policyKeyOfLabel,
  policyLabelOf,
  policyVersions,
  reportedCelPolicies,
} from './known-policies';
import { ReportAggregator, type ResourceKey } from './report-aggregator';
import { kubeReportsCluster, listAll, type ReportsCluster } from './reports-cluster';

/** Failed merges of one resource before it is left until its reports change again. */
const MAX_ATTEMPTS = 10;
const RETRY_BASE_MS = 100;
const MAX_RETRY_DELAY_MS = 30_000;
const POLICY_REPORTS: ResourceRef = { apiVersion: POLICY_REPORT_API_VERSION, kind: POLICY_REPORT_KIND };
const CLUSTER_POLICY_REPORTS: ResourceRef = { apiVersion: POLICY_REPORT_API_VERSION, kind: CLUSTER_POLICY_REPORT_KIND };

@Injectable()
@LeaderProvider()
export class AggregationController implements LeaderAware {
  private readonly logger = new Logger('Aggregation');
  private readonly cluster: ReportsCluster;
  private readonly aggregator: ReportAggregator;
  private queue?: WorkQueue;
  private readonly attempts = new Map<string, number>();
  private versions = new Map<string, string>();

  constructor(
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    private readonly resources: KubeResources,
    private readonly cache: PolicyCache,
    private readonly metrics: ReportsControllerMetrics,
    @Inject(CEL_POLICY_SOURCE) private readonly celPolicies: CelPolicySource,
  ) {
    this.cluster = kubeReportsCluster(resources);
    const known = (key: string) => knownPolicy(cache.snapshot(), key, reportedCelPolicies(celPolicies));
    this.aggregator = new ReportAggregator(this.cluster, known, {
      graceMs: config.admissionReportGraceMs,
    });
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((key) => this.handle(key), this.config.aggregationWorkers);
    this.queue = queue;
    const informers = [EPHEMERAL_REPORT_KIND, CLUSTER_EPHEMERAL_REPORT_KIND].map((kind) => this.admissionReports(kind));
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // Policies first: results of a policy the cache does not know yet would wait for nothing.
    await Promise.race([this.cache.waitForSync(), stopped]);
    let unsubscribe: () => void = () => undefined;
    if (!signal.aborted) {
      for (const informer of informers) informer.start();
      this.versions = policyVersions(this.cache.snapshot(), reportedCelPolicies(this.celPolicies));
      const classic = this.cache.onChange(() => this.policiesChanged());
      const cel = onCelPoliciesChange(this.celPolicies, () => this.policiesChanged());
      unsubscribe = () => {
        classic();
        cel();
      };
      void this.queueStaleReports(signal);
    }
    await stopped;
    unsubscribe();
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
    };
    informer.on('add', queueOwner);
    informer.on('update', queueOwner);
    return informer;
  }

  private policiesChanged(): void {
    const versions = policyVersions(this.cache.snapshot(), reportedCelPolicies(this.celPolicies));
    const changed = changedPolicies(this.versions, versions);
    this.versions = versions;
    for (const key of changed) void this.queueReportsOf(key);
  }

  /** Queues every report carrying the policy's label. */
  private async queueReportsOf(policyKey: string): Promise<void> {
    const { label, namespace } = policyLabelOf(policyKey);
    try {
      // A Policy's results are only in its namespace's PolicyReports.
      const types = namespace ? [{ ...POLICY_REPORTS, namespace }] : [POLICY_REPORTS, CLUSTER_POLICY_REPORTS];
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
    const celPolicies = reportedCelPolicies(this.celPolicies);
    try {
      for (const type of [POLICY_REPORTS, CLUSTER_POLICY_REPORTS]) {
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

  private async handle(queued: string): Promise<void> {
    const slash = queued.indexOf('/');
    const key: ResourceKey = { namespace: queued.slice(0, slash) || undefined, uid: queued.slice(slash + 1) };
    try {
      const outcome = await this.aggregator.reconcile(key);
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
