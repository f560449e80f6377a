// Test helpers for @edict/controller-manager: an in-memory API server with the controller manager next to it.
import type { InMemoryApiServerOptions } from '@edict/apiserver';
import { startServer, type Running } from '@edict/apiserver/testing';
import {
  runControllerManager,
  type ControllerManagerOptions,
  type RunningControllerManager,
} from '../run-controller-manager';

export interface RunningCluster extends Running {
  readonly controllerManager: RunningControllerManager;
  /** Stops the controller manager, then the API server. */
  stop(): Promise<void>;
}

/** A started API server with the garbage collector (unless turned off) and, when asked, the controllers. */
export async function startCluster(
  options: InMemoryApiServerOptions & ControllerManagerOptions = {},
): Promise<RunningCluster> {
  const running = await startServer(options);
  const controllerManager = runControllerManager(running.server, options);
  return {
    ...running,
    controllerManager,
    async stop() {
      await controllerManager.stop();
      await running.server.stop();
    },
  };
}
