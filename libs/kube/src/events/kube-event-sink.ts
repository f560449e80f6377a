/** The EventSink over KubeResources: create, and a merge patch of `series` for repeats. */
import type { KubeResources } from '../http/kube-resources';
import type { EventSink, KubeEvent } from './event-types';

export class KubeEventSink implements EventSink {
  constructor(private readonly resources: KubeResources) {}

  create(event: KubeEvent): Promise<unknown> {
    return this.resources.create(event);
  }

  dropped(): void {
    this.resources.onEventDropped?.();
  }

  updateSeries(event: KubeEvent): Promise<unknown> {
    return this.resources.patch(
      {
        apiVersion: event.apiVersion,
        kind: event.kind,
        name: event.metadata.name,
        namespace: event.metadata.namespace,
      },
      'merge',
      { series: event.series ?? null },
    );
  }
}
