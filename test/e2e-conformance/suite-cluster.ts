/**
 * The embedded cluster as Kyverno's suite expects its installation: the in-memory API server with
 * Edict installed under Kyverno's names (namespace, ConfigMap, Service, webhook configurations,
 * Secrets, Leases), the ConfigMap Kyverno's chart installs, and PolicyExceptions honoured from any
 * namespace (the suite's Kyverno install enables them so).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JsonObject } from '@edict/engine';
import { startLocalCluster } from '../../apps/launcher/src/local/local-cluster';

export interface SuiteCluster {
  readonly kubeconfigPath: string;
  /** Stops the controller and the API server and removes the kubeconfig's folder. */
  stop(): Promise<void>;
}

export const INSTALL_MANIFEST = resolve('test/e2e-conformance/kyverno-install.yaml');

export async function startSuiteCluster(): Promise<SuiteCluster> {
  const workDir = mkdtempSync(join(tmpdir(), 'edict-e2e-'));
  const cluster = await startLocalCluster({
    apiPort: 0,
    kubeconfigPath: join(workDir, 'kubeconfig'),
    env: { ...process.env, EDICT_INSTALL_NAME: 'kyverno', EDICT_WEBHOOK_PORT: '0' },
    controller: { exceptionNamespaces: ['*'], adminEndpoints: false },
    preinstalled: readManifest(INSTALL_MANIFEST),
    logger: ['error'],
  });
  return {
    kubeconfigPath: cluster.kubeconfigPath,
    stop: async () => {
      await cluster.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

function readManifest(path: string): JsonObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => document.toJS() as JsonObject | null)
    .filter((object): object is JsonObject => object !== null);
}
