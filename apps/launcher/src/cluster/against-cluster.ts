/**
 * Cluster mode: the admission controller alone, against the configured cluster (in-cluster or
 * KUBECONFIG). It installs nothing there; what it needs and lacks is named with the command that
 * fixes it, before anything starts.
 */
import type { LoggerService, LogLevel } from '@nestjs/common';
import { KubeHttpClient, KubeResources, loadKubeConfig } from '@edict/kube';
import {
  loadControllerConfig,
  startController,
  type ControllerConfig,
  type RunningController,
} from '@edict/admission-controller';
import { LauncherError } from '../launcher-error';
import { errorMessage } from '@edict/foundation';

/** Without these the policy cache cannot sync (and the controller would never turn ready). */
const REQUIRED_CRDS = ['clusterpolicies.kyverno.io', 'policies.kyverno.io', 'policyexceptions.kyverno.io'];

export interface ClusterControllerOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly controller?: Partial<ControllerConfig>;
  readonly logger?: LoggerService | LogLevel[] | false;
}

export interface ClusterController {
  readonly controller: RunningController;
  readonly config: ControllerConfig;
  /** The API server's URL and the kubeconfig context (or `in-cluster`). */
  readonly server: string;
  readonly cluster: string;
  stop(): Promise<void>;
}

export async function startAgainstCluster(options: ClusterControllerOptions = {}): Promise<ClusterController> {
  const config = loadControllerConfig(options.env ?? process.env, options.controller);
  const kubeConfig = loadKubeConfig({
    source: config.kubeSource,
    ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
    ...(config.kubeconfigPath ? { kubeconfigPath: config.kubeconfigPath } : {}),
  });
  const server = kubeConfig.getCurrentCluster()?.server ?? 'an unknown server';
  const cluster = kubeConfig.getCurrentContext() || 'in-cluster';
  await checkPrerequisites(new KubeResources(new KubeHttpClient(kubeConfig)), config, server);
  const controller = await startController(config, { logger: options.logger ?? ['log', 'warn', 'error'] });
  return { controller, config, server, cluster, stop: () => controller.stop() };
}

async function checkPrerequisites(resources: KubeResources, config: ControllerConfig, server: string): Promise<void> {
  const missing: string[] = [];
  try {
    const crds: string[] = [];
    for (const name of REQUIRED_CRDS) {
      const crd = await resources.find({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name,
      });
      if (!crd) crds.push(name);
    }
    if (crds.length > 0) missing.push(`CRDs ${crds.join(', ')}: kubectl apply -f charts/edict/files/crds/`);
    const namespace = await resources.find({ apiVersion: 'v1', kind: 'Namespace', name: config.namespace });
    if (!namespace) missing.push(`namespace ${config.namespace}: kubectl create namespace ${config.namespace}`);
  } catch (error) {
    throw new LauncherError(`cannot use the cluster at ${server}: ${errorMessage(error)}`);
  }
  if (missing.length > 0) {
    throw new LauncherError(`the cluster at ${server} lacks what Edict needs:\n  ${missing.join('\n  ')}`);
  }
}
