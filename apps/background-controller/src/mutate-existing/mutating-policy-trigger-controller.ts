/**
 * Leader-only: follows the CEL policy cache and, for each mutate-existing MutatingPolicy created or
 * changed, creates the UpdateRequests its change asks for (mutating-policy-changes.ts). On becoming
 * leader every installed policy counts as created, as Kyverno's policy controller processes every
 * policy when it starts (the requests are named from the policy's version, so one already made is
 * not made again). A failed policy is retried with a doubling delay, then given up with an error in
 * the log.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CompiledMutatingPolicy } from '@edict/cel-policies';
import { errorMessage } from '@edict/foundation';
import { KubeResources } from '@edict/kube';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { CelPolicyCache } from '@edict/policy';
import { WorkQueue } from '@edict/work-queue';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { kubeClusterObjects, type ClusterObjects } from '../update-requests/cluster-objects';
import {
  createPolicyChangeRequest,
  MutatingPolicyChangeTracker,
  policyChangeRequests,
} from './mutating-policy-changes';
import type { ResourceLookup } from './resource-rule-objects';

const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 60_000;

@Injectable()
@LeaderProvider()
export class MutatingPolicyTriggerController implements LeaderAware {
  private readonly logger = new Logger('MutatingPolicyTriggers');
  private readonly cluster: ClusterObjects;
  private readonly resourceNamed: ResourceLookup;
  private readonly pending = new Map<string, CompiledMutatingPolicy>();
  private readonly attempts = new Map<string, number>();
  private queue?: WorkQueue;

  constructor(
    @Inject(BACKGROUND_CONFIG) private readonly config: BackgroundConfig,
    private readonly celPolicies: CelPolicyCache,
    resources: KubeResources,
  ) {
    this.cluster = kubeClusterObjects(resources);
    this.resourceNamed = (apiVersion, plural) => resources.resourceNamed(apiVersion, plural);
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((key) => this.handle(key), 1);
    this.queue = queue;
    const tracker = new MutatingPolicyChangeTracker();
    const observe = () => {
      if (signal.aborted) return;
      for (const compiled of tracker.observe(this.celPolicies.mutatingPolicies())) {
        const key = `${compiled.kind}/${compiled.namespace ?? ''}/${compiled.name}`;
        this.pending.set(key, compiled);
        this.attempts.delete(key);
        queue.add(key);
      }
    };
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([this.celPolicies.waitForSync(), stopped]);
    if (!signal.aborted) {
      const off = this.celPolicies.onChange(observe);
      observe();
      await stopped;
      off();
    }
    await queue.stop();
    this.pending.clear();
    this.attempts.clear();
  }

  private async handle(key: string): Promise<void> {
    const compiled = this.pending.get(key);
    if (!compiled) return;
    try {
      const { requests, failures } = await policyChangeRequests(compiled, {
        cluster: this.cluster,
        resourceNamed: this.resourceNamed,
        namespace: this.config.namespace,
      });
      for (const request of requests) await createPolicyChangeRequest(this.cluster, request);
      if (failures.length > 0) throw new Error(failures.join('; '));
      if (this.pending.get(key) === compiled) this.pending.delete(key);
      this.attempts.delete(key);
    } catch (error) {
      const attempts = (this.attempts.get(key) ?? 0) + 1;
      if (attempts < MAX_ATTEMPTS) {
        this.attempts.set(key, attempts);
        this.logger.warn(`mutating policy ${key}: ${errorMessage(error)}; retrying`);
        this.queue?.addAfter(key, Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS));
        return;
      }
      this.attempts.delete(key);
      this.pending.delete(key);
      this.logger.error(`mutating policy ${key}: giving up after ${attempts} attempts: ${errorMessage(error)}`);
    }
  }
}
