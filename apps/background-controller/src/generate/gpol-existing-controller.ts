/**
 * Leader-only: runs generateExisting (gpol-existing.ts) for each GeneratingPolicy that asks for it,
 * once per policy version seen while leading (on becoming leader every such policy counts as new,
 * as Kyverno's controller processes every policy when it starts). A failed pass is retried with a
 * doubling delay, then given up with an error in the log.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '@edict/foundation';
import { KubeResources, isNotFound } from '@edict/kube';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { CelPolicyCache } from '@edict/policy';
import { WorkQueue } from '@edict/work-queue';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { kubeClusterObjects } from '../update-requests/cluster-objects';
import { generateForExisting, type ExistingTriggerDeps } from './gpol-existing';

const WORKERS = 2;
const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 60_000;
/** UpdateRequests one policy's pass may create. */
const MAX_REQUESTS_PER_POLICY = 10_000;

@Injectable()
@LeaderProvider()
export class GpolExistingController implements LeaderAware {
  private readonly logger = new Logger('GenerateExisting');
  private readonly deps: ExistingTriggerDeps;
  private readonly attempts = new Map<string, number>();

  constructor(
    @Inject(BACKGROUND_CONFIG) config: BackgroundConfig,
    private readonly celPolicies: CelPolicyCache,
    resources: KubeResources,
  ) {
    this.deps = {
      cluster: kubeClusterObjects(resources),
      kindOf: async (apiVersion, resource) => {
        try {
          return (await resources.resourceNamed(apiVersion, resource))?.kind;
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      },
      namespace: config.namespace,
      maxRequests: MAX_REQUESTS_PER_POLICY,
      warn: (message) => this.logger.warn(message),
    };
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const seen = new Set<string>();
    const queue: WorkQueue = new WorkQueue((version): Promise<void> => this.handle(version, queue), WORKERS);
    const observe = () => {
      if (signal.aborted) return;
      for (const compiled of this.celPolicies.generatingPolicies()) {
        if (!compiled.generateExisting) continue;
        const version = versionOf(compiled.policy.metadata);
        if (seen.has(version)) continue;
        seen.add(version);
        queue.add(version);
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
    this.attempts.clear();
  }

  private async handle(version: string, queue: WorkQueue): Promise<void> {
    const compiled = this.celPolicies
      .generatingPolicies()
      .find((candidate) => versionOf(candidate.policy.metadata) === version);
    if (!compiled) return; // changed or deleted since: its newer version has its own pass
    try {
      const found = await generateForExisting(compiled, this.deps);
      this.attempts.delete(version);
      this.logger.log(`generateExisting of ${compiled.name}: ${found} existing trigger(s) queued`);
    } catch (error) {
      const attempts = (this.attempts.get(version) ?? 0) + 1;
      if (attempts >= MAX_ATTEMPTS) {
        this.attempts.delete(version);
        this.logger.error(`generateExisting of ${compiled.name}: giving up: ${errorMessage(error)}`);
        return;
      }
      this.attempts.set(version, attempts);
      this.logger.warn(`generateExisting of ${compiled.name}: ${errorMessage(error)}; retrying`);
      queue.addAfter(version, Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS));
    }
  }
}

function versionOf(metadata: { uid?: string; generation?: number; resourceVersion?: string } | undefined): string {
  return `${metadata?.uid ?? ''}@${String(metadata?.generation ?? metadata?.resourceVersion ?? '')}`;
}
