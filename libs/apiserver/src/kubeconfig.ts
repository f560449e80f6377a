/**
 * A kubeconfig for a local server URL, as kubectl and client-node read it. An `https://` server is
 * trusted through its CA, and the user is a client certificate (kubectl asks for a password over
 * HTTPS without credentials); for `http://` servers there are none (requests act as the server's
 * default user) and it sets `insecure-skip-tls-verify: true`: kubectl ignores it there, and
 * client-node refuses plain HTTP without it.
 */
import { stringify } from 'yaml';
import type { CertifiedKey } from './tls/cluster-ca';

export interface KubeconfigOptions {
  readonly server: string;
  /** Cluster, context and user name (default `edict-local`). */
  readonly name?: string;
  readonly namespace?: string;
  /** The CA certificate (PEM) of an `https://` server. */
  readonly certificateAuthority?: string;
  /** The user's client certificate and key. */
  readonly client?: CertifiedKey;
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
          ...(options.certificateAuthority
            ? { 'certificate-authority-data': Buffer.from(options.certificateAuthority).toString('base64') }
            : {}),
        },
      },
    ],
    users: [
      {
        name,
        user: options.client
          ? {
              'client-certificate-data': Buffer.from(options.client.certPem).toString('base64'),
              'client-key-data': Buffer.from(options.client.keyPem).toString('base64'),
            }
          : {},
      },
    ],
    contexts: [
      { name, context: { cluster: name, user: name, ...(options.namespace ? { namespace: options.namespace } : {}) } },
    ],
    'current-context': name,
    preferences: {},
  });
}
