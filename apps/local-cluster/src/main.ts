/**
 * `npm run local-cluster`: the in-memory API server alone on 127.0.0.1, with a kubeconfig written
 * to `.edict/kubeconfig` so kubectl and client libraries can use it.
 *   EDICT_LOCAL_CLUSTER_PORT (default 6443), EDICT_KUBECONFIG (default .edict/kubeconfig).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';

export const DEFAULT_PORT = 6443;

async function main(): Promise<void> {
  const port = Number(process.env.EDICT_LOCAL_CLUSTER_PORT ?? DEFAULT_PORT);
  const kubeconfigPath = resolve(process.env.EDICT_KUBECONFIG ?? '.edict/kubeconfig');
  const server = new InMemoryApiServer();
  const { url } = await server.start({ host: '127.0.0.1', port });
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfigFor({ server: url }), { mode: 0o600 });
  process.stdout.write(
    [
      `Edict local cluster (in-memory Kubernetes API) listening on ${url}`,
      `Kubeconfig written to ${kubeconfigPath}. Use it with:`,
      `  export KUBECONFIG=${kubeconfigPath}`,
      '  kubectl get namespaces',
      'State lives in memory and is gone when this process stops (Ctrl-C).',
      '',
    ].join('\n'),
  );
  const shutdown = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`local-cluster: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
