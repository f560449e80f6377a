/**
 * The Events Kyverno's cleanup controller emits for each object a policy deletes or fails to
 * delete, on the policy and related to the object (source `kyverno-cleanup`):
 *  - `PolicyApplied`, `successfully cleaned up the target resource <Kind>/<namespace>/<name>`;
 *  - `PolicyError`, `failed to clean up the target resource <Kind>/<namespace>/<name>: <why>`.
 */
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { EventRecorder, KubeEventSink, KubeResources, type EventInput } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

export const CLEANUP_EVENT_SOURCE = 'kyverno-cleanup';

/** The policy an event is about: a cleanup policy, or a DeletingPolicy (same Events, as Kyverno emits them). */
export interface EventPolicy {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid?: string };
}

export function cleanupEvent(policy: EventPolicy, target: KubeObject, error?: string): EventInput {
  const { namespace = '', name = '', uid } = target.metadata ?? {};
  const described = `${target.kind}/${namespace}/${name}`;
  return {
    regarding: {
      apiVersion: policy.apiVersion ?? 'kyverno.io/v2',
      kind: policy.kind ?? 'ClusterCleanupPolicy',
      name: policy.metadata.name,
      ...(policy.metadata.namespace ? { namespace: policy.metadata.namespace } : {}),
      ...(policy.metadata.uid ? { uid: policy.metadata.uid } : {}),
    },
    related: {
      apiVersion: target.apiVersion ?? '',
      kind: target.kind ?? '',
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
    },
    type: error === undefined ? 'Normal' : 'Warning',
    reason: error === undefined ? 'PolicyApplied' : 'PolicyError',
    action: 'Resource Cleaned Up',
    note:
      error === undefined
        ? `successfully cleaned up the target resource ${described}`
        : `failed to clean up the target resource ${described}: ${error}`,
  };
}

@Injectable()
export class CleanupEvents implements OnApplicationShutdown {
  private readonly logger = new Logger('CleanupEvents');
  private readonly recorder: EventRecorder;

  constructor(
    @Inject(CLEANUP_CONFIG) private readonly config: CleanupConfig,
    resources: KubeResources,
  ) {
    this.recorder = new EventRecorder(new KubeEventSink(resources), {
      reportingController: CLEANUP_EVENT_SOURCE,
      reportingInstance: `${CLEANUP_EVENT_SOURCE}-${hostname()}`,
      maxPending: config.maxQueuedEvents,
      onError: (error, event) =>
        this.logger.warn(
          `event ${event.reason} on ${event.regarding.kind} ${event.regarding.name}: ${(error as Error).message}`,
        ),
    });
  }

  record(event: EventInput): void {
    this.recorder.record(event);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recorder.stop(this.config.drainTimeoutMs);
  }
}
