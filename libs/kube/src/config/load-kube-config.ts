/** Resolves the module options to a loaded `KubeConfig`, with a clear error when nothing fits. */
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeModuleOptions } from './kube-module-options';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface KubeConfigEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exists: (path: string) => boolean;
  readonly home: string;
  readonly cwd: string;
}

const PROCESS_ENVIRONMENT: KubeConfigEnvironment = {
  get env() {
    return process.env;
  },
  exists: existsSync,
  get home() {
    return homedir();
  },
  get cwd() {
    return process.cwd();
  },
};

export function loadKubeConfig(
  options: Pick<KubeModuleOptions, 'source'> & Partial<KubeModuleOptions>,
  environment: KubeConfigEnvironment = PROCESS_ENVIRONMENT,
): KubeConfig {
  const config = new KubeConfig();
  const source = options.source ?? 'auto';
  const explicit = options.kubeconfig !== undefined || options.kubeconfigPath !== undefined;

  if (source === 'in-cluster' || (source === 'auto' && !explicit && inClusterAvailable(options, environment))) {
    const missing = inClusterMissing(options, environment);
    if (missing.length > 0) throw new Error(`in-cluster configuration is not available: ${missing.join(', ')}`);
    config.loadFromCluster(options.serviceAccountPathPrefix);
    // client-node reads process.env itself; take the server from the environment we were given.
    const host = environment.env.KUBERNETES_SERVICE_HOST!;
    const port = environment.env.KUBERNETES_SERVICE_PORT!;
    const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
    const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
    config.clusters = config.clusters.map((cluster) => ({ ...cluster, server }));
    return config;
  }

  if (options.kubeconfig !== undefined) {
    config.loadFromString(options.kubeconfig);
  } else {
    const file = kubeconfigFile(options, environment, source === 'auto');
    if (!file) {
      throw new Error(
        source === 'auto'
          ? 'no Kubernetes configuration found: not in a cluster, and no kubeconfig (option, $KUBECONFIG, .edict/kubeconfig or ~/.kube/config)'
          : 'no kubeconfig found: set kubeconfig or kubeconfigPath, or $KUBECONFIG, or create ~/.kube/config',
      );
    }
    if (!environment.exists(file)) throw new Error(`kubeconfig file not found: ${file}`);
    config.loadFromFile(file);
  }
  if (options.context) {
    if (!config.getContextObject(options.context)) throw new Error(`kubeconfig has no context "${options.context}"`);
    config.setCurrentContext(options.context);
  }
  if (!config.getCurrentCluster()) throw new Error('the kubeconfig has no current cluster (check current-context)');
  return config;
}

function kubeconfigFile(
  options: Partial<KubeModuleOptions>,
  environment: KubeConfigEnvironment,
  auto: boolean,
): string | undefined {
  if (options.kubeconfigPath) return resolve(environment.cwd, options.kubeconfigPath);
  // $KUBECONFIG may list several files; like kubectl's first-found rule for reading, take the first that exists.
  const fromEnv = (environment.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv.find((f) => environment.exists(f)) ?? fromEnv[0];
  if (auto) {
    const local = resolve(environment.cwd, options.localKubeconfigPath ?? '.edict/kubeconfig');
    if (environment.exists(local)) return local;
  }
  const home = join(environment.home, '.kube', 'config');
  return environment.exists(home) ? home : undefined;
}

function inClusterMissing(options: Partial<KubeModuleOptions>, environment: KubeConfigEnvironment): string[] {
  const missing: string[] = [];
  if (!environment.env.KUBERNETES_SERVICE_HOST) missing.push('KUBERNETES_SERVICE_HOST is not set');
  if (!environment.env.KUBERNETES_SERVICE_PORT) missing.push('KUBERNETES_SERVICE_PORT is not set');
  const token = `${options.serviceAccountPathPrefix ?? ''}${SERVICE_ACCOUNT_TOKEN}`;
  if (!environment.exists(token)) missing.push(`no service account token at ${token}`);
  return missing;
}

function inClusterAvailable(options: Partial<KubeModuleOptions>, environment: KubeConfigEnvironment): boolean {
  return inClusterMissing(options, environment).length === 0;
}
