/**
 * Leader-only: watches the UpdateRequests in the controller's namespace and processes them with
 * `genWorkers` workers (Kyverno's background controller). New and Pending requests are queued at
 * once; a Failed one after a delay that doubles with its retryCount; Completed ones (left by an
 * interrupted leader) are queued so they get deleted. Losing leadership stops the watch and the
 * queue; requests in progress finish their current step.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InformerFactory, KubeResources, type Informer } from '@edict/kube';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { AdmissionConfigService, CelPolicyCache, PolicyCache } from '@edict/policy';
import { AdmissionReportWriter, KubeReportStore, type EphemeralReportObject } from '@edict/reports';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { ClusterEngine, ClusterKyvernoCelPorts } from '@edict/context';
import { generatingRequestDeps } from '../generate/gpol-request-deps';
import { generationReport } from '../generate/gpol-report';
import type { GeneratedFor } from '../generate/gpol-request';
import { BackgroundEventRecorders } from '../events/background-event-recorders';
import { successEventAllowed } from '../events/background-events';
import { BackgroundMetrics } from '../metrics/background-metrics';
import { TriggerReports } from '../reports/trigger-reports';
import { kubeClusterObjects } from './cluster-objects';
import { WorkQueue } from '@edict/work-queue';
import { UpdateRequestProcessor } from './update-request-processor';
import { isUpdateRequest, UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND } from './update-request';

/** Longest wait between two attempts of one request. */
const MAX_RETRY_DELAY_MS = 60_000;
/** First and longest wait of a request for the change it answers to be stored. */
const FIRST_WAIT_MS = 50;
const MAX_WAIT_MS = 2_000;
/** Steps of one request that may throw (API errors) before it is left to the next leader or relist. */
const MAX_STEP_ERRORS = 10;

@Injectable()
@LeaderProvider()
export class UpdateRequestController implements LeaderAware {
  private readonly logger = new Logger('UpdateRequests');
  private readonly processor: UpdateRequestProcessor;
  private queue?: WorkQueue;
  /** The leader's informer: requests are processed from its copies (no read each). */
  private informer?: Informer<KubeObject>;
  private readonly retryAt = new Map<string, number>();
  private readonly stepErrors = new Map<string, number>();
  /** Steps a request waited for its admitted change, by name. */
  private readonly waits = new Map<string, number>();

  constructor(
    @Inject(BACKGROUND_CONFIG) private readonly config: BackgroundConfig,
    private readonly informers: InformerFactory,
    private readonly cache: PolicyCache,
    private readonly metrics: BackgroundMetrics,
    resources: KubeResources,
    engine: ClusterEngine,
    events: BackgroundEventRecorders,
    clusterConfig: AdmissionConfigService,
    private readonly celPolicies: CelPolicyCache,
    celPorts: ClusterKyvernoCelPorts,
  ) {
    const reportWriter = new AdmissionReportWriter(new KubeReportStore(resources));
    const reports = new TriggerReports(reportWriter, config.enableReporting);
    this.processor = new UpdateRequestProcessor(
      {
        engine,
        cluster: kubeClusterObjects(resources),
        namespaceLabels: async (namespace) => {
          if (!namespace) return undefined;
          return ((await engine.namespace(namespace))?.metadata?.labels as Record<string, string> | undefined) ?? {};
        },
        emit: (source, event) => {
          if (successEventAllowed(event, clusterConfig.current().successEventActions)) events.record(source, event);
        },
        generateSuccessEvents: () => clusterConfig.current().generateSuccessEvents,
        policy: (key) => cache.snapshot().policies.get(key),
        report: (requestKey, applied) => reports.write(requestKey, applied),
        ...(config.enableReporting.includes('mutateExisting')
          ? {
              reportMutateExisting: async (report: EphemeralReportObject) => {
                try {
                  await reportWriter.write(report);
                } catch (error) {
                  this.logger.warn(`report ${report.metadata.name} not written: ${errorMessage(error)}`);
                }
              },
            }
          : {}),
        mutating: {
          mutatingPolicies: () => celPolicies.mutatingPolicies(),
          resourceNamed: (apiVersion, plural) => resources.resourceNamed(apiVersion, plural),
          celContext: () => ({ ports: celPorts.ports, exceptions: celPolicies.policyExceptions() }),
        },
        generating: {
          ...generatingRequestDeps(celPolicies, celPorts, resources, engine, metrics),
          ...(config.enableReporting.includes('generate')
            ? {
                reportGeneration: async (requestKey: string, generated: GeneratedFor) => {
                  const report = generationReport(generated, requestKey, new Date());
                  if (!report) return;
                  try {
                    await reportWriter.write(report);
                  } catch (error) {
                    this.logger.warn(`report ${report.metadata.name} not written: ${errorMessage(error)}`);
                  }
                },
              }
            : {}),
        },
      },
      { namespace: config.namespace, maxRetries: config.maxRetries, admissionWaitMs: config.admissionWaitMs },
    );
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((name) => this.handle(name), this.config.genWorkers);
    this.queue = queue;
    const informer = this.informers.create<KubeObject>({
      apiVersion: UPDATE_REQUEST_API_VERSION,
      kind: UPDATE_REQUEST_KIND,
      namespace: this.config.namespace,
      watchTimeoutSeconds: this.config.watchTimeoutSeconds,
    });
    this.informer = informer;
    informer.on('add', (object) => this.enqueue(object, true));
    informer.on('update', (object) => this.enqueue(object, false));
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // Policies first: a request whose policy the cache does not know yet would fail for nothing.
    await Promise.race([Promise.all([this.cache.waitForSync(), this.celPolicies.waitForSync()]), stopped]);
    if (!signal.aborted) informer.start();
    await stopped;
    await informer.stop();
    await queue.stop();
    this.informer = undefined;
    this.retryAt.clear();
    this.stepErrors.clear();
    this.waits.clear();
  }

  /** Requests waiting or in progress (0 when not leading). */
  depth(): number {
    return this.queue?.depth ?? 0;
  }

  private enqueue(object: KubeObject, added: boolean): void {
    if (!isUpdateRequest(object)) return;
    const name = object.metadata.name;
    const state = object.status?.state;
    if (state === 'Skip' || (!added && state === 'Completed')) return;
    if (state === 'Failed') this.retryLater(name, object.status?.retryCount ?? 1);
    else this.queue?.add(name);
    this.metrics.queueDepth.set(this.depth());
  }

  private retryLater(name: string, retryCount: number): void {
    const delay = Math.min(this.config.retryDelayMs * 2 ** Math.max(0, retryCount - 1), MAX_RETRY_DELAY_MS);
    const due = Date.now() + delay;
    if ((this.retryAt.get(name) ?? 0) < due) this.retryAt.set(name, due);
    this.queue?.addAfter(name, delay);
  }

  private async handle(name: string): Promise<void> {
    const due = this.retryAt.get(name);
    if (due !== undefined && due > Date.now()) {
      this.queue?.addAfter(name, due - Date.now());
      return;
    }
    this.metrics.reconciled();
    try {
      const known = this.informer?.get(name, this.config.namespace);
      const result = await this.processor.step(name, known && isUpdateRequest(known) ? known : undefined);
      this.stepErrors.delete(name);
      if (result.kind === 'waiting') {
        const waits = this.waits.get(name) ?? 0;
        this.waits.set(name, waits + 1);
        this.queue?.addAfter(name, Math.min(FIRST_WAIT_MS * 2 ** waits, MAX_WAIT_MS));
        return;
      }
      this.waits.delete(name);
      if (result.kind === 'failed') {
        this.metrics.processed('failed');
        this.metrics.requeued(result.retryCount);
        this.logger.warn(`UpdateRequest ${name} failed (attempt ${result.retryCount}): ${result.message}`);
        this.retryLater(name, result.retryCount);
        return;
      }
      this.retryAt.delete(name);
      if (result.kind === 'completed') this.metrics.processed('completed');
      if (result.kind === 'dropped') {
        this.metrics.dropped();
        this.logger.warn(`UpdateRequest ${name} given up after ${this.config.maxRetries} retries: ${result.message}`);
      }
    } catch (error) {
      const errors = (this.stepErrors.get(name) ?? 0) + 1;
      this.stepErrors.set(name, errors);
      const message = errorMessage(error);
      if (errors >= MAX_STEP_ERRORS) {
        this.stepErrors.delete(name);
        this.metrics.dropped();
        this.logger.error(`UpdateRequest ${name}: giving up for now after ${errors} errors: ${message}`);
        return;
      }
      this.metrics.requeued(errors);
      this.logger.warn(`UpdateRequest ${name}: ${message}; retrying`);
      this.retryLater(name, errors);
    } finally {
      this.metrics.queueDepth.set(this.depth());
    }
  }
}
