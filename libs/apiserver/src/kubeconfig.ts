/**
 * A kubeconfig for a local server URL (plain HTTP, no credentials), as kubectl and client-node read
 * it. For `http://` servers it sets `insecure-skip-tls-verify: true`: kubectl ignores it there, and
 * client-node refuses plain HTTP without it.
 */
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  readonly server: string;
  /** Cluster, context and user name (default `edict-local`). */
  readonly name?: string;
  readonly namespace?: string;
  /** Act as this user (kubectl's `--as`: the `Impersonate-User` header). */
  readonly impersonate?: string;
}

export function kubeconfigFor(options: KubeconfigOptions): string {
  const name = options.name ?? 'edict-local';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: options.server,
          ...(options.server.startsWith('http://') ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name, user: options.impersonate ? { as: options.impersonate } : {} }],
    contexts: [
      { name, context: { cluster: name, user: name, ...(options.namespace ? { namespace: options.namespace } : {}) } },
    ],
    'current-context': name,
    preferences: {},
  });
}
