/** Test helpers: a KubeConfig for a local server URL, and a poll-until helper. */
import { KubeConfig } from '@kubernetes/client-node';
import { kubeconfigFor } from '@edict/apiserver';

/** A KubeConfig pointing at a plain-HTTP local API server (e.g. an `InMemoryApiServer`). */
export function kubeConfigForUrl(url: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(kubeconfigFor({ server: url }));
  return config;
}

/** Polls `check` until it returns true or `timeoutMs` passes (then throws with `what`). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
