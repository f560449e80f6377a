/**
 * kube-controller-manager next to an in-memory API server, as the launcher and test clusters run it:
 * the garbage collector (default on, as the API server used to run it itself) and, when asked, the
 * Deployment, ReplicaSet, service account, ClusterRole aggregation and CSR signing controllers.
 */
import type { InMemoryApiServer } from '@edict/apiserver';
import { ControllerManager } from './controller-manager';
import { GarbageCollector } from './gc/garbage-collector';

export interface ControllerManagerOptions {
  /** Deletes dependents of removed owners (default true). */
  readonly garbageCollection?: boolean;
  /**
   * Runs the Deployment, ReplicaSet, service account, ClusterRole aggregation and (with the server's
   * `ca`) client CSR signing controllers (default false): they write through the API as a cluster
   * without nodes would (Pods stay Pending).
   */
  readonly controllers?: boolean;
}

export interface RunningControllerManager {
  /** The ownerReferences garbage collector (`await gc?.settled()` waits for it). */
  readonly gc: GarbageCollector | undefined;
  /** The controllers when enabled (`await controllers?.settled()` waits for them). */
  readonly controllers: ControllerManager | undefined;
  /** Resolves once the collector and the controllers have nothing left to do. */
  settled(): Promise<void>;
  /** Stops the controllers (waiting for running syncs) and the collector. */
  stop(): Promise<void>;
}

export function runControllerManager(
  server: Pick<InMemoryApiServer, 'client' | 'ca'>,
  options: ControllerManagerOptions = {},
): RunningControllerManager {
  const gc = options.garbageCollection === false ? undefined : new GarbageCollector(server.client);
  const controllers = options.controllers ? new ControllerManager(server.client, server.ca) : undefined;
  controllers?.start();
  return {
    gc,
    controllers,
    async settled() {
      await controllers?.settled();
      await gc?.settled();
    },
    async stop() {
      await controllers?.stop();
      gc?.stop();
    },
  };
}
