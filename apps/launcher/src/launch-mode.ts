/**
 * Which Kubernetes `npm start` works with. A configured cluster wins: inside a pod (the service
 * account's KUBERNETES_SERVICE_HOST) or a KUBECONFIG in the environment. Otherwise it brings its own
 * in-memory cluster. ~/.kube/config alone does not count, so a newcomer with an old kubeconfig
 * still gets the local cluster; `KUBECONFIG=~/.kube/config npm start` uses it on purpose. A KUBECONFIG
 * naming the local cluster's own file (left exported from an earlier run) means local mode too.
 */
import { resolve } from 'node:path';

export type LaunchMode =
  | { readonly kind: 'local' }
  | { readonly kind: 'cluster'; readonly source: 'in-cluster' | 'kubeconfig'; readonly description: string };

export function launchModeOf(env: NodeJS.ProcessEnv, localKubeconfigPath: string, cwd = process.cwd()): LaunchMode {
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  if (host) {
    return { kind: 'cluster', source: 'in-cluster', description: `in-cluster (KUBERNETES_SERVICE_HOST=${host})` };
  }
  const kubeconfig = env.KUBECONFIG?.trim();
  if (kubeconfig && !sameFile(kubeconfig, localKubeconfigPath, cwd)) {
    return { kind: 'cluster', source: 'kubeconfig', description: `KUBECONFIG=${kubeconfig}` };
  }
  return { kind: 'local' };
}

function sameFile(kubeconfig: string, local: string, cwd: string): boolean {
  // KUBECONFIG may list several files; only exactly the local one counts as local.
  return resolve(cwd, kubeconfig) === resolve(cwd, local);
}
