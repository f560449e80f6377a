/**
 * Which Kubernetes `npm start` works with, chosen explicitly: its own in-memory cluster unless
 * EDICT_MODE=cluster asks for a real one. A KUBECONFIG exported in the shell (often a production
 * context) never switches the mode by itself, as `kyverno apply` only goes to a cluster with
 * `--cluster`; the launcher says which mode it runs and why, and names the KUBECONFIG it leaves alone.
 * In cluster mode the cluster is the pod's own (KUBERNETES_SERVICE_HOST), else KUBECONFIG's, else
 * ~/.kube/config, as kubectl would pick it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type RequestedMode = 'local' | 'cluster';

export type LaunchMode =
  | {
      readonly kind: 'local';
      readonly reason: string;
      /** A cluster the environment names that local mode leaves alone. */
      readonly unused?: string;
    }
  | {
      readonly kind: 'cluster';
      readonly source: 'in-cluster' | 'kubeconfig';
      readonly description: string;
      /** The kubeconfig file to use when KUBECONFIG does not name one (kubectl's default). */
      readonly kubeconfigPath?: string;
      readonly reason: string;
    };

export interface LaunchEnvironment {
  readonly env: NodeJS.ProcessEnv;
  /** The local cluster's own kubeconfig (EDICT_KUBECONFIG): a KUBECONFIG naming it is no other cluster. */
  readonly localKubeconfigPath: string;
  readonly cwd?: string;
  readonly home?: string;
  readonly exists?: (path: string) => boolean;
}

export function launchModeOf(requested: RequestedMode, environment: LaunchEnvironment): LaunchMode {
  const { env, localKubeconfigPath } = environment;
  const cwd = environment.cwd ?? process.cwd();
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  const kubeconfig = env.KUBECONFIG?.trim();
  if (requested === 'local') {
    const unused =
      kubeconfig && resolve(cwd, kubeconfig) !== resolve(cwd, localKubeconfigPath)
        ? `KUBECONFIG=${kubeconfig}`
        : host
          ? `The pod's cluster (KUBERNETES_SERVICE_HOST=${host})`
          : undefined;
    const reason = env.EDICT_MODE?.trim() ? 'EDICT_MODE=local' : 'the default';
    return unused ? { kind: 'local', reason, unused } : { kind: 'local', reason };
  }
  const reason = 'EDICT_MODE=cluster';
  if (host) {
    return {
      kind: 'cluster',
      source: 'in-cluster',
      description: `in-cluster (KUBERNETES_SERVICE_HOST=${host})`,
      reason,
    };
  }
  if (kubeconfig) return { kind: 'cluster', source: 'kubeconfig', description: `KUBECONFIG=${kubeconfig}`, reason };
  const home = join(environment.home ?? homedir(), '.kube', 'config');
  if ((environment.exists ?? existsSync)(home)) {
    return { kind: 'cluster', source: 'kubeconfig', description: home, kubeconfigPath: home, reason };
  }
  throw new Error(
    'EDICT_MODE=cluster: no cluster configured (not in a pod, KUBECONFIG is not set, no ~/.kube/config); ' +
      'set KUBECONFIG, or leave EDICT_MODE unset for the local in-memory cluster',
  );
}

/** The line `npm start` opens with: the mode and why. */
export function describeLaunchMode(mode: LaunchMode): string {
  if (mode.kind === 'cluster') return `Mode: cluster (${mode.reason}), against ${mode.description}.`;
  const unused = mode.unused ? ` ${mode.unused} is not used: EDICT_MODE=cluster npm start runs against it.` : '';
  return `Mode: local (${mode.reason}), an in-memory cluster.${unused}`;
}
