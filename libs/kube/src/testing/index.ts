/** Test helpers: a KubeConfig for a local server URL, and a poll-until helper. */
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A KubeConfig pointing at a plain-HTTP local API server (e.g. an `InMemoryApiServer`), built here
 * so that libs/kube needs nothing of the API server lib outside its specs.
 */
export function kubeConfigForUrl(url: string): KubeConfig {
  const name = 'edict-local';
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name, server: url, skipTLSVerify: url.startsWith('http://') }],
    users: [{ name }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
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
