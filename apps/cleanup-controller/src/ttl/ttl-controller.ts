/**
 * Leader-only: deletes objects labelled `cleanup.kyverno.io/ttl` once due, as Kyverno's TTL
 * controller does. It watches (label selector: the TTL label is set) every type discovery lists
 * with list, watch and delete that this controller's RBAC lets it list, watch and delete, and looks
 * again every `ttlDiscoveryIntervalMs` (new CRDs, granted or revoked roles). A value that is no
 * duration or moment is logged once and the object is left alone. The deletion propagates as the
 * `cleanup.kyverno.io/propagation-policy` annotation says (Background when absent or unknown).
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DELETION_PROPAGATION_POLICIES, type DeletionPropagationPolicy } from '@edict/engine';
import { InformerFactory, KubeResources, type Informer } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { WorkQueue } from '@edict/work-queue';
import { kubeCleanupCluster, type CleanupCluster, type ObjectType } from '../cluster/cleanup-cluster';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';
import { CleanupMetrics } from '../metrics/cleanup-metrics';
import { TTL_LABEL, TTL_PROPAGATION_ANNOTATION, ttlDeadline } from './ttl-label';

const NEEDED_VERBS = ['list', 'watch', 'delete'] as const;

@Injectable()
@LeaderProvider()
export class TtlController implements LeaderAware {
  private readonly logger = new Logger('TTL');
  private readonly cluster: CleanupCluster;
  /** The latest copy of each labelled object, by key, with its type. */
  private readonly objects = new Map<string, { type: ObjectType; object: KubeObject }>();
  /** Label values already reported as unreadable, by key. */
  private readonly reported = new Map<string, string>();
  /** The types watched now (while leading), for kyverno_ttl_controller_info. */
  private readonly watchedTypes = new Map<string, ObjectType>();

  constructor(
    @Inject(CLEANUP_CONFIG) private readonly config: CleanupConfig,
    private readonly informers: InformerFactory,
    private readonly metrics: CleanupMetrics,
    resources: KubeResources,
  ) {
    this.cluster = kubeCleanupCluster(resources);
    metrics.observeTtlTypes(() => this.watchedTypes.values());
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const queue: WorkQueue = new WorkQueue((key) => this.handle(key, queue), this.config.workers);
    const watched = new Map<string, Informer<KubeObject>>();
    while (!signal.aborted) {
      try {
        await this.watchPermittedTypes(watched, queue, signal);
      } catch (error) {
        this.logger.warn(`discovery of the types to watch failed: ${(error as Error).message}`);
      }
      await sleep(this.config.ttlDiscoveryIntervalMs, signal);
    }
    await Promise.all([...watched.values()].map((informer) => informer.stop()));
    await queue.stop();
    this.objects.clear();
    this.watchedTypes.clear();
  }

  private async watchPermittedTypes(
    watched: Map<string, Informer<KubeObject>>,
    queue: WorkQueue,
    signal: AbortSignal,
  ): Promise<void> {
    const served = (await this.cluster.typesOf('*')).filter((type) =>
      NEEDED_VERBS.every((verb) => type.verbs.includes(verb)),
    );
    const permitted = new Map<string, ObjectType>();
    // One type at a time: a cluster serves many, and this must not flood its API server. Leadership
    // ending stops the pass (it would otherwise hold up the shutdown for a review per type).
    for (const type of served) {
      if (signal.aborted) return;
      if (await this.cluster.allowed(type, NEEDED_VERBS)) permitted.set(typeKey(type), type);
    }
    for (const [key, informer] of watched) {
      if (permitted.has(key)) continue;
      watched.delete(key);
      this.watchedTypes.delete(key);
      await informer.stop();
    }
    for (const [key, type] of permitted) {
      if (watched.has(key)) continue;
      const informer = this.informers.create<KubeObject>({
        apiVersion: type.apiVersion,
        kind: type.kind,
        labelSelector: TTL_LABEL,
        watchTimeoutSeconds: this.config.watchTimeoutSeconds,
      });
      const keep = (object: KubeObject) => {
        const key = objectKey(type, object);
        this.objects.set(key, { type, object });
        queue.add(key);
      };
      informer.on('add', keep);
      informer.on('update', keep);
      informer.on('delete', (object) => {
        this.objects.delete(objectKey(type, object));
      });
      informer.start();
      watched.set(key, informer);
      this.watchedTypes.set(key, type);
    }
  }

  private async handle(key: string, queue: WorkQueue): Promise<void> {
    const entry = this.objects.get(key);
    if (!entry) return;
    const { type, object } = entry;
    const value = object.metadata?.labels?.[TTL_LABEL];
    if (value === undefined) return;
    const created = new Date(String(object.metadata?.creationTimestamp ?? ''));
    const deadline = Number.isNaN(created.getTime()) ? undefined : ttlDeadline(value, created);
    if (!deadline) {
      if (this.reported.get(key) !== value) {
        this.reported.set(key, value);
        this.logger.warn(`${key}: label ${TTL_LABEL}=${value} is neither a duration nor a time; left alone`);
      }
      return;
    }
    const wait = deadline.getTime() - Date.now();
    if (wait > 0) {
      queue.addAfter(key, wait);
      return;
    }
    const target = {
      group: type.group,
      version: type.version,
      resource: type.resource,
      ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    };
    try {
      if (await this.cluster.delete(object, propagationOf(object))) this.metrics.ttlOutcome(target, true);
      this.objects.delete(key);
    } catch (error) {
      this.metrics.ttlOutcome(target, false);
      throw error; // the queue retries with backoff
    }
  }
}

function propagationOf(object: KubeObject): DeletionPropagationPolicy | undefined {
  const value = object.metadata?.annotations?.[TTL_PROPAGATION_ANNOTATION];
  return (DELETION_PROPAGATION_POLICIES as readonly string[]).includes(value ?? '')
    ? (value as DeletionPropagationPolicy)
    : undefined;
}

function typeKey(type: ObjectType): string {
  return `${type.group}/${type.resource}`;
}

function objectKey(type: ObjectType, object: KubeObject): string {
  return `${typeKey(type)}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/** Waits `ms`, or not at all once `signal` is aborted (even before the call: no event would come). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
