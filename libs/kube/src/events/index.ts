export { EventRecorder, type EventRecorderOptions, type EventRecorderStats } from './event-recorder';
export { KubeEventSink } from './kube-event-sink';
export type * from './event-types';
