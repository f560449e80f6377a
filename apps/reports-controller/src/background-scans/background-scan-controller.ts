/**
 * Leader-only: background scans (Kyverno's background scan controller). Which resource types it
 * watches comes from the background policies' validate rules (their kinds resolved through API
 * discovery), so it does not watch everything; the set follows policy changes.
 *
 * Per type, a pass lists the objects page by page (`limit`/`continue`) and scans each with at most
 * `backgroundScanWorkers` at once, the next page read only when the previous one is done (the back
 * pressure); passes and single resources are keys of one work queue. A type is passed over when it
 * starts being watched, when background policies or exceptions change, and every `backgroundScanIntervalMs` with up to 10%
 * jitter (catching what a watch missed); in every pass only resources whose hash or policy set
 * changed are evaluated. Between passes, a metadata-only informer queues a resource whose
 * resourceVersion moved; it is read and scanned (evaluated only when its hash changed). Nothing but
 * the informers' metadata and the scanner's per-resource memory is kept.
 */
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import {
  EventRecorder,
  Informer,
  KubeEventSink,
  KubeResources,
  metadataOnly,
  resourceListWatch,
  type ResourceRef,
  DiscoveryResolver,
  servedTypes,
  type ServedType,
} from '@edict/kube';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { PolicyCache } from '@edict/policy';
import { InformerReportCounter, ReportBreaker } from '@edict/reports';
import { WorkQueue } from '@edict/work-queue';
import { kubeReportsCluster, type ReportsCluster } from '../aggregation/reports-cluster';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';
import { ReportsControllerMetrics } from '../metrics/reports-controller-metrics';
import { backgroundKindSelectors, scanSignature } from './background-policies';
import { ResourceScanner } from './resource-scanner';
import { scannedByValidatingPolicies, type ScannedResource } from './background-validating-policies';
import { evaluateImageValidatingPolicies, evaluateMutatingPolicy, evaluateValidatingPolicy } from '@edict/cel-policies';
import {
  CEL_POLICY_SOURCE,
  celExceptionsSignature,
  onCelPoliciesChange,
  type CelPolicySource,
} from '@edict/controller-runtime';
import { ClusterEngine, ClusterImagePolicyPorts, ClusterKyvernoCelPorts } from '@edict/context';
import { SCAN_EVENT_SOURCE } from './scan-events';
import { KubeNativePolicySource } from '../native-policies/native-policy-source';
import { nativePolicyScans, type NativePolicyScans } from './native-policy-scans';
import { clusterParamSource } from './cluster-param-source';

const PAGE_SIZE = 500;
const JITTER = 0.1;
const TYPE_KEY = 'type:';
const RESOURCE_KEY = 'resource:';

interface WatchedType {
  readonly ref: ResourceRef;
  /** Group, version and plural: what ValidatingPolicies match on. */
  readonly resource: ScannedResource;
  readonly informer: Informer<KubeObject>;
}

@Injectable()
@LeaderProvider()
export class BackgroundScanController implements LeaderAware, OnApplicationShutdown {
  private readonly logger = new Logger('BackgroundScan');
  private readonly cluster: ReportsCluster;
  private readonly discovery: DiscoveryResolver;
  private readonly events: EventRecorder;
  private readonly scanner: ResourceScanner;
  private readonly native: NativePolicyScans;
  private readonly watched = new Map<string, WatchedType>();
  private breaker?: ReportBreaker;
  private queue?: WorkQueue;

  constructor(
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    private readonly resources: KubeResources,
    private readonly cache: PolicyCache,
    engine: ClusterEngine,
    private readonly metrics: ReportsControllerMetrics,
    @Inject(CEL_POLICY_SOURCE) private readonly celPolicies: CelPolicySource,
    celPorts: ClusterKyvernoCelPorts,
    imagePorts: ClusterImagePolicyPorts,
    private readonly nativeSource: KubeNativePolicySource,
  ) {
    this.cluster = kubeReportsCluster(resources);
    this.discovery = new DiscoveryResolver(resources.http);
    const omit = new Set(config.omitEvents);
    this.events = new EventRecorder(new KubeEventSink(resources), {
      reportingController: SCAN_EVENT_SOURCE,
      reportingInstance: `${SCAN_EVENT_SOURCE}-${hostname()}`,
      maxPending: config.maxQueuedEvents,
      onError: (error, event) =>
        this.logger.warn(
          `event ${event.reason} on ${event.regarding.kind} ${event.regarding.name}: ${errorMessage(error)}`,
        ),
    });
    this.native = nativePolicyScans(nativeSource, clusterParamSource(resources, this.discovery));
    this.scanner = new ResourceScanner(this.cluster, {
      validate: (policy, request) => engine.scan(policy.compiled, request),
      snapshot: () => cache.snapshot(),
      mayWriteReport: () => this.breaker?.allow() ?? false,
      policyReports: config.policyReports,
      allowedResults: config.allowedResults,
      recordEvents: (events) => {
        for (const event of events) if (!omit.has(event.reason)) this.events.record(event);
      },
      onResponse: (policy, response) => metrics.policyResults(policy, response),
      validatingPolicies: {
        policies: () => celPolicies.validatingPolicies(),
        exceptionsSignature: () => celExceptionsSignature(celPolicies),
        // Background scans have no admission request: the exceptions of the cache, no authorizer.
        evaluate: (compiled, input) =>
          evaluateValidatingPolicy(compiled, input, {
            ports: celPorts.ports,
            exceptions: celPolicies.policyExceptions(),
          }),
        onResponse: (compiled, response, seconds) => metrics.validatingPolicyResult(compiled, response, seconds),
      },
      imageValidatingPolicies: {
        policies: () => celPolicies.imageValidatingPolicies?.() ?? [],
        exceptionsSignature: () => celExceptionsSignature(celPolicies),
        evaluate: async (policies, input) =>
          (
            await evaluateImageValidatingPolicies(policies, input, {
              ports: celPorts.ports,
              exceptions: celPolicies.policyExceptions(),
              ...(imagePorts.ports ? { images: imagePorts.ports } : {}),
            })
          ).map((outcome) => outcome.response),
        onResponse: (compiled, response, seconds) => metrics.imageValidatingPolicyResult(compiled, response, seconds),
      },
      mutatingPolicies: {
        policies: () => celPolicies.mutatingPolicies?.() ?? [],
        exceptionsSignature: () => celExceptionsSignature(celPolicies),
        // Reported on, never applied: the scan compares the object with what the policy would make of it.
        evaluate: (compiled, input) =>
          evaluateMutatingPolicy(compiled, input, {
            ports: celPorts.ports,
            exceptions: celPolicies.policyExceptions(),
          }),
        onResponse: (compiled, result, seconds) => metrics.mutatingPolicyResult(compiled, result, seconds),
      },
      nativePolicies: this.native,
    });
  }

  /** Whether background scans run at all (Kyverno: --backgroundScan, and validate results reported). */
  get enabled(): boolean {
    return this.config.backgroundScan && this.config.enableReporting.includes('validate');
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    if (!this.enabled) return;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    const counter = new InformerReportCounter(this.resources, { watchTimeoutSeconds: this.config.watchTimeoutSeconds });
    this.breaker = new ReportBreaker(counter, this.config.maxBackgroundReports, this.metrics.breakerListener());
    // Passes and changed resources run `backgroundScanWorkers` at once, each pass as many objects.
    const queue = new WorkQueue((key) => this.handle(key), this.config.backgroundScanWorkers);
    this.queue = queue;
    counter.start();
    await Promise.race([this.cache.waitForSync(), stopped]);
    // ValidatingAdmissionPolicies and MutatingAdmissionPolicies (behind their report flags), synced first.
    const releaseNative = await this.nativeSource.acquire();
    let unsubscribe: () => void = () => undefined;
    if (!signal.aborted) {
      let signature = scanSignature(this.cache.snapshot());
      const classic = this.cache.onChange((snapshot) => {
        const next = scanSignature(snapshot);
        if (next === signature) return;
        signature = next;
        void this.followPolicies(true);
      });
      // A ValidatingPolicy or CEL exception changed: re-scan (Kyverno re-scans on policy change).
      const cel = onCelPoliciesChange(this.celPolicies, () => void this.followPolicies(true));
      // A native policy or binding changed: every resource is scanned again, as Kyverno does.
      const native = this.nativeSource.onChange(() => void this.followPolicies(true));
      unsubscribe = () => {
        classic();
        cel();
        native();
      };
      await this.followPolicies(false);
    }
    await stopped;
    unsubscribe();
    await releaseNative();
    await queue.stop();
    this.queue = undefined;
    await Promise.all([...this.watched.values()].map(({ informer }) => informer.stop()));
    this.watched.clear();
    await counter.stop();
    this.breaker = undefined;
    this.scanner.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.events.stop(this.config.drainTimeoutMs);
  }

  /**
   * Watches the types the background policies name now (new ones get a first pass, gone ones stop
   * being watched) and, after a policy change, passes over every watched type again.
   */
  private async followPolicies(policiesChanged: boolean): Promise<void> {
    let types: ServedType[];
    try {
      types = await this.typesOfPolicies();
    } catch (error) {
      this.logger.warn(`resolving the kinds of background policies: ${errorMessage(error)}`);
      return;
    }
    if (!this.queue) return;
    const wanted = new Map(types.map((type) => [`${type.apiVersion}/${type.kind}`, type]));
    for (const [key, { informer }] of this.watched) {
      if (wanted.has(key)) continue;
      this.watched.delete(key);
      void informer.stop();
    }
    for (const [key, type] of wanted) {
      if (this.watched.has(key)) {
        if (policiesChanged) this.queue.add(TYPE_KEY + key);
        continue;
      }
      this.watched.set(key, {
        ref: { apiVersion: type.apiVersion, kind: type.kind },
        resource: { group: type.group, version: type.version, resource: type.resource },
        informer: this.informer(type),
      });
      this.queue.add(TYPE_KEY + key);
    }
    this.metrics.watchedTypes.set(this.watched.size);
  }

  private async typesOfPolicies(): Promise<ServedType[]> {
    const types: ServedType[] = [];
    const listable = (type: ServedType) => type.verbs.includes('list') && type.verbs.includes('watch');
    for (const selector of backgroundKindSelectors(this.cache.snapshot())) {
      const served = await servedTypes(this.discovery, selector);
      types.push(...served.filter(listable));
    }
    // The types CEL policies' resource rules name (resources, not kinds: every served type is looked at).
    const celPolicies = [
      ...this.celPolicies.validatingPolicies(),
      ...(this.celPolicies.imageValidatingPolicies?.() ?? []),
      ...(this.celPolicies.mutatingPolicies?.() ?? []),
    ];
    const nativePolicies = this.nativeSource.snapshot();
    if (
      celPolicies.some((compiled) => compiled.background) ||
      nativePolicies.validating.length + nativePolicies.mutating.length > 0
    ) {
      for (const type of await servedTypes(this.discovery, '*'))
        if (listable(type) && (scannedByValidatingPolicies(celPolicies, type) || this.native.names(type)))
          types.push(type);
    }
    return types;
  }

  /** A metadata-only informer queueing the resources that changed since they were scanned; not started yet. */
  private informer(type: ServedType): Informer<KubeObject> {
    const informer = new Informer<KubeObject>(
      metadataOnly(
        resourceListWatch(this.resources, {
          apiVersion: type.apiVersion,
          kind: type.kind,
          pageSize: PAGE_SIZE,
          watchTimeoutSeconds: this.config.watchTimeoutSeconds,
        }),
      ),
      { name: `background scan ${type.apiVersion}/${type.kind}`, logger: { warn: (m) => this.logger.warn(m) } },
    );
    const changed = (object: KubeObject) => {
      const uid = object.metadata?.uid;
      if (!uid || this.scanner.isCurrent(uid, object.metadata?.resourceVersion)) return;
      const { namespace = '', name = '' } = object.metadata ?? {};
      this.queue?.add(`${RESOURCE_KEY}${type.apiVersion}/${type.kind}|${namespace}|${name}`);
    };
    informer.on('add', changed);
    informer.on('update', changed);
    informer.on('delete', (object: KubeObject) => {
      if (object.metadata?.uid) this.scanner.forget(object.metadata.uid);
    });
    return informer;
  }

  private async handle(key: string): Promise<void> {
    try {
      if (key.startsWith(TYPE_KEY)) await this.pass(key.slice(TYPE_KEY.length));
      else await this.scanOne(key.slice(RESOURCE_KEY.length));
    } catch (error) {
      this.logger.debug(`background scan of ${key}: ${errorMessage(error)}; retrying`);
      throw error; // the work queue retries it after a growing delay
    } finally {
      this.metrics.backgroundQueueDepth.set(this.queue?.depth ?? 0);
    }
  }

  /** One pass over a watched type, page by page; then the informer runs and the next pass is set. */
  private async pass(typeKey: string): Promise<void> {
    const watched = this.watched.get(typeKey);
    if (!watched) return;
    let next: string | undefined;
    do {
      const page = await this.cluster.listPage(watched.ref, { limit: PAGE_SIZE, ...(next ? { continue: next } : {}) });
      await inParallel(page.items, this.config.backgroundScanWorkers, (object) =>
        this.scanInPass(object, watched.resource),
      );
      next = page.continue;
    } while (next && this.queue);
    watched.informer.start(); // once; its first list finds what this pass scanned current
    const jitter = 1 + (Math.random() * 2 - 1) * JITTER;
    this.queue?.addAfter(TYPE_KEY + typeKey, Math.round(this.config.backgroundScanIntervalMs * jitter));
  }

  private async scanOne(resource: string): Promise<void> {
    const [type, namespace, name] = resource.split('|') as [string, string, string];
    const watched = this.watched.get(type);
    if (!watched) return;
    const object = await this.cluster.find({ ...watched.ref, name, ...(namespace ? { namespace } : {}) });
    if (object) await this.scan(object, watched.resource);
  }

  private async scan(object: KubeObject, resource: ScannedResource): Promise<void> {
    this.metrics.backgroundScanned(await this.scanner.scan(object, resource));
  }

  /** Within a pass, a resource that fails is left for its next change or the next pass. */
  private async scanInPass(object: KubeObject, resource: ScannedResource): Promise<void> {
    try {
      await this.scan(object, resource);
    } catch (error) {
      this.metrics.backgroundScanned('failed');
      const { namespace, name } = object.metadata ?? {};
      this.logger.warn(
        `background scan of ${object.kind} ${namespace ? `${namespace}/` : ''}${name}: ${errorMessage(error)}`,
      );
    }
  }
}

/** Runs `work` on every item, at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
