/**
 * The background controller's Event recorders, one per Kyverno source (`kyverno-generate`,
 * `kyverno-mutate`), each bounded and aggregated by the shared EventRecorder. Reasons listed in
 * `omitEvents` are dropped here.
 */
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { EventRecorder, KubeEventSink, KubeResources, type EventInput } from '@edict/kube';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { GENERATE_EVENT_SOURCE, MUTATE_EXISTING_EVENT_SOURCE, type BackgroundEventSource } from './background-events';

@Injectable()
export class BackgroundEventRecorders implements OnApplicationShutdown {
  private readonly logger = new Logger('BackgroundEvents');
  private readonly recorders: ReadonlyMap<BackgroundEventSource, EventRecorder>;
  private readonly omit: ReadonlySet<string>;

  constructor(
    @Inject(BACKGROUND_CONFIG) private readonly config: BackgroundConfig,
    resources: KubeResources,
  ) {
    this.omit = new Set(config.omitEvents);
    const sink = new KubeEventSink(resources);
    const recorder = (source: BackgroundEventSource) =>
      new EventRecorder(sink, {
        reportingController: source,
        reportingInstance: `${source}-${hostname()}`,
        maxPending: config.maxQueuedEvents,
        onError: (error, event) =>
          this.logger.warn(
            `event ${event.reason} on ${event.regarding.kind} ${event.regarding.name}: ${(error as Error).message}`,
          ),
      });
    this.recorders = new Map([
      [GENERATE_EVENT_SOURCE, recorder(GENERATE_EVENT_SOURCE)],
      [MUTATE_EXISTING_EVENT_SOURCE, recorder(MUTATE_EXISTING_EVENT_SOURCE)],
    ]);
  }

  record(source: BackgroundEventSource, event: EventInput): void {
    if (!this.omit.has(event.reason)) this.recorders.get(source)?.record(event);
  }

  /** After leadership ended: what is pending is written within drainTimeoutMs, then recording stops. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.recorders.values()].map((recorder) => recorder.stop(this.config.drainTimeoutMs)));
  }
}
