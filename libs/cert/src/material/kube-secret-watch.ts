/**
 * Watches the namespace's Secrets with client-node's Watch and reports events on our two names.
 * Each (re)start begins without a resourceVersion, so the server replays the current Secrets as
 * ADDED: nothing changed while disconnected is missed. Restarts back off (doubling to 30 s).
 */
import { Watch, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { Logger } from '@nestjs/common';
import type { SecretWatchSource } from '../secrets/secret-store';

const MAX_BACKOFF_MS = 30_000;

export class KubeSecretWatch implements SecretWatchSource {
  private readonly logger = new Logger('KubeSecretWatch');
  private abort?: AbortController;
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private backoffMs: number;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly namespace: string,
    private readonly retryMs: number,
  ) {
    this.backoffMs = retryMs;
  }

  start(names: readonly string[], onChange: (name: string) => void): void {
    if (!this.stopped) return;
    this.stopped = false;
    const wanted = new Set(names);
    const open = async (): Promise<void> => {
      if (this.stopped) return;
      let ended = false;
      const restart = (error?: unknown): void => {
        if (ended) return;
        ended = true;
        if (this.stopped) return;
        if (error) this.logger.warn(`secret watch ended: ${(error as Error)?.message ?? String(error)}`);
        this.timer = setTimeout(() => void open(), this.backoffMs);
        this.timer.unref?.();
        this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      };
      try {
        this.abort = await new Watch(this.kubeConfig).watch(
          `/api/v1/namespaces/${this.namespace}/secrets`,
          { allowWatchBookmarks: true },
          (phase: string, secret: V1Secret) => {
            this.backoffMs = this.retryMs;
            const name = secret?.metadata?.name;
            if (phase !== 'BOOKMARK' && name && wanted.has(name)) onChange(name);
          },
          (error: unknown) => restart(error ?? undefined),
        );
        if (this.stopped) this.abort.abort();
      } catch (error) {
        restart(error);
      }
    };
    void open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.abort = undefined;
  }
}
