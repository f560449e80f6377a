/**
 * One scenario's embedded cluster: the API server child, the balancer standing in for the webhook
 * Service, and controller replicas started and killed by name. Everything it started is stopped by
 * `close`, whatever state a scenario left it in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigFor } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { DEFAULT_WEBHOOK_NAMES } from '@edict/webhook-config';
import { BenchChild } from '../child-process';
import type { ClusterInput, ClusterReport, LeaseChange } from './cluster';
import { ControllerProcess, type ControllerKind } from './controller-process';
import { ServiceBalancer } from './service-balancer';
import { timeUntil } from './settle';

/** The kubelet's readiness probe period here (Kyverno's chart probes every 10 s; kept short so a run is short). */
export const PROBE_INTERVAL_MS = 1_000;
/** Failed probes in a row before a replica leaves the Service (the kubelet's default). */
const PROBE_FAILURE_THRESHOLD = 3;
/** From a pod's deletion until kube-proxy stops sending it connections (its default minimum sync period). */
const ENDPOINT_REMOVAL_MS = 1_000;
const READY_TIMEOUT_MS = 90_000;

export class ChaosCluster {
  readonly replicas: ControllerProcess[] = [];
  private counter = 0;

  private constructor(
    readonly api: BenchChild<ClusterReport>,
    readonly balancer: ServiceBalancer,
    /** Where the webhook Service (the balancer) listens. */
    readonly balancerPort: number,
    readonly kubeconfigPath: string,
    readonly logDir: string,
  ) {}

  static async start(extraObjects: JsonObject[] = []): Promise<ChaosCluster> {
    const logDir = mkdtempSync(join(tmpdir(), 'edict-chaos-'));
    console.log(`(replica logs: ${logDir})`);
    const balancer = new ServiceBalancer({
      probeIntervalMs: PROBE_INTERVAL_MS,
      probePath: '/readyz',
      probeTimeoutMs: 1_000,
      failureThreshold: PROBE_FAILURE_THRESHOLD,
    });
    const balancerPort = await balancer.start();
    const api = await BenchChild.start<ClusterReport>('chaos-cluster', {
      balancerPort,
      extraObjects,
    } satisfies ClusterInput);
    const kubeconfigPath = join(logDir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigFor({ server: api.report.url }));
    return new ChaosCluster(api, balancer, balancerPort, kubeconfigPath, logDir);
  }

  get url(): string {
    return this.api.report.url;
  }

  /** Starts a replica of `kind` (admission replicas join the balancer) and waits until it is ready. */
  async startReplica(kind: ControllerKind, env: Record<string, string> = {}): Promise<ControllerProcess> {
    const replica = await ControllerProcess.start({
      kind,
      name: `${kind}-${this.counter++}`,
      kubeconfigPath: this.kubeconfigPath,
      logDir: this.logDir,
      env,
    });
    this.replicas.push(replica);
    await replica.waitReady(READY_TIMEOUT_MS);
    // A dead replica stays listed until its probe fails, as an endpoint does until the kubelet notices.
    if (kind === 'admission') this.balancer.add(replica.port);
    return replica;
  }

  /**
   * Stops a replica as its pod's deletion does: SIGTERM now, and its endpoint leaves the Service a
   * moment later, whatever its readiness; SIGKILL (the container dying) leaves the endpoint to the probes.
   */
  stop(replica: ControllerProcess, signal: 'SIGTERM' | 'SIGKILL'): void {
    replica.signal(signal);
    if (signal === 'SIGTERM' && replica.settings.kind === 'admission')
      setTimeout(() => this.balancer.remove(replica.port), ENDPOINT_REMOVAL_MS).unref();
  }

  running(kind: ControllerKind): ControllerProcess[] {
    return this.replicas.filter((replica) => replica.settings.kind === kind && replica.running);
  }

  leaseChanges(): Promise<LeaseChange[]> {
    return this.api.call<LeaseChange[]>('lease-changes');
  }

  /** The holder of `lease` now, as the API server stores it ('' when released or none). */
  async holder(lease: string): Promise<string> {
    const changes = (await this.leaseChanges()).filter((change) => change.lease === lease);
    return changes.at(-1)?.holder ?? '';
  }

  /** Waits until `lease` is held by one of the running replicas; resolves with its name. */
  async awaitLeader(lease: string, timeoutMs: number): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const holder = await this.holder(lease);
      if (this.replicas.some((replica) => replica.name === holder && replica.running)) return holder;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no running replica holds Lease ${lease} after ${timeoutMs} ms`);
  }

  /** Waits until the admission leader has registered its validating webhook configuration. */
  async awaitWebhookConfiguration(timeoutMs = 60_000): Promise<void> {
    const configuration = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name: DEFAULT_WEBHOOK_NAMES.resourceValidating,
    };
    await timeUntil(() => this.api.call<boolean>('exists', configuration), timeoutMs, 'webhook configuration');
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.kill()));
    await this.balancer.stop();
    await this.api.stop();
  }
}
