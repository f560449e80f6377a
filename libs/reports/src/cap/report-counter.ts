/**
 * How many intermediate reports exist, for a cap: Kyverno's admission reports counter (source
 * `admission`, for `--maxAdmissionReports`) or its ephemeral reports counter (every source, for
 * `--maxBackgroundReports`), which watch the reports' metadata. Two informers over
 * EphemeralReports and ClusterEphemeralReports keeping only names and uids, so ten thousand
 * reports cost little memory. They ask the API server for PartialObjectMetadata, so that the
 * admission controller's own report writes come back as metadata, not whole reports to parse.
 */
import { Informer, metadataOnly, resourceListWatch, type KubeResources } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import {
  CLUSTER_EPHEMERAL_REPORT_KIND,
  EPHEMERAL_REPORT_KIND,
  LABEL_SOURCE,
  REPORTS_API_VERSION,
} from '../report/labels';

export interface ReportCount {
  count: number;
  /** False until both informers have synced (and after they stop): the count is not known. */
  running: boolean;
}

export interface ReportCounter {
  current(): ReportCount;
}

export interface InformerReportCounterOptions {
  /** Only reports with this `audit.kyverno.io/source` (every report without). */
  source?: string;
  watchTimeoutSeconds?: number;
  resyncIntervalMs?: number;
}

export class InformerReportCounter implements ReportCounter {
  private readonly informers: Informer<KubeObject>[];

  constructor(resources: KubeResources, options: InformerReportCounterOptions = {}) {
    this.informers = [EPHEMERAL_REPORT_KIND, CLUSTER_EPHEMERAL_REPORT_KIND].map(
      (kind) =>
        new Informer<KubeObject>(
          metadataOnly(
            resourceListWatch<KubeObject>(resources, {
              apiVersion: REPORTS_API_VERSION,
              kind,
              metadataOnly: true,
              ...(options.source ? { labelSelector: `${LABEL_SOURCE}=${options.source}` } : {}),
              ...(options.watchTimeoutSeconds ? { watchTimeoutSeconds: options.watchTimeoutSeconds } : {}),
            }),
          ),
          {
            name: `${REPORTS_API_VERSION}/${kind}${options.source ? ` (${options.source})` : ''} counter`,
            ...(options.resyncIntervalMs !== undefined ? { resyncIntervalMs: options.resyncIntervalMs } : {}),
          },
        ),
    );
  }

  start(): void {
    for (const informer of this.informers) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }

  waitForSync(timeoutMs?: number): Promise<void> {
    return Promise.all(this.informers.map((informer) => informer.waitForSync(timeoutMs))).then(() => undefined);
  }

  current(): ReportCount {
    let count = 0;
    for (const informer of this.informers) {
      const stats = informer.stats();
      if (!stats.synced) return { count: 0, running: false };
      count += stats.size;
    }
    return { count, running: true };
  }
}
