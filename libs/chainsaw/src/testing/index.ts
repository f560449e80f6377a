// Test helpers for @edict/chainsaw: throwaway test folders and an in-memory cluster to run them on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { kubeconfigFor } from '@edict/apiserver';
import { startServer, type Running } from '@edict/apiserver/testing';
import { runControllerManager } from '@edict/controller-manager';
import { KubeClusterClient } from '../cluster/kube-cluster-client';

/** Writes files (path relative to a fresh temp folder → content); `remove()` deletes the folder. */
export function writeTestFolder(files: Readonly<Record<string, string>>): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'edict-chainsaw-'));
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface ChainsawTestCluster {
  readonly running: Running;
  readonly kubeconfigPath: string;
  readonly client: KubeClusterClient;
  stop(): Promise<void>;
}

/** The in-memory API server, a kubeconfig file for it and a ClusterClient on it. */
export async function startChainsawTestCluster(): Promise<ChainsawTestCluster> {
  const running = await startServer();
  // The garbage collector, as a cluster runs it next to its API server.
  const controllerManager = runControllerManager(running.server);
  const dir = mkdtempSync(join(tmpdir(), 'edict-chainsaw-kube-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigFor({ server: running.url }));
  return {
    running,
    kubeconfigPath,
    client: KubeClusterClient.fromKubeconfigFile(kubeconfigPath),
    async stop() {
      await controllerManager.stop();
      await running.server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
