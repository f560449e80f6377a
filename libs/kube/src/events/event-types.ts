/** events.k8s.io/v1 Event shapes the recorder writes. */

/** core/v1 ObjectReference: what an event is about (`regarding`) or also involves (`related`). */
export interface EventObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export type EventType = 'Normal' | 'Warning';

/** One occurrence to record. */
export interface EventInput {
  regarding: EventObjectReference;
  related?: EventObjectReference;
  type: EventType;
  /** Why (CamelCase, e.g. `PolicyViolation`). */
  reason: string;
  /** What was done (e.g. `Resource Blocked`). */
  action: string;
  /** Human-readable text (at most 1 kB is kept, the API server's limit). */
  note: string;
}

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

export interface KubeEvent {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string; [key: string]: unknown };
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: EventObjectReference;
  related?: EventObjectReference;
  note: string;
  type: EventType;
  [key: string]: unknown;
}

/** Where events go: the API server (KubeEventSink) or a fake. */
export interface EventSink {
  create(event: KubeEvent): Promise<unknown>;
  /** Updates the series of a created event (a 404 means it is gone: the recorder creates it anew). */
  updateSeries(event: KubeEvent): Promise<unknown>;
  /** An event the recorder gave up on: dropped at its limits, or not written after its retries. */
  dropped?(): void;
}
