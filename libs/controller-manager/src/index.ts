// kube-controller-manager for the in-memory API server: controllers and the garbage collector.
export { ControllerManager } from './controller-manager';
export { GarbageCollector } from './gc/garbage-collector';
export {
  runControllerManager,
  type ControllerManagerOptions,
  type RunningControllerManager,
} from './run-controller-manager';
