/**
 * Watches the namespace's Secrets with libs/kube's informer (names and metadata only: no key
 * material of other Secrets is held) and reports events on our two names. The informer lists
 * first, so every wanted Secret that exists is reported at start, and after a disconnect it
 * watches on from the last version seen (or relists and reports what changed): nothing changed
 * while disconnected is missed. Failed lists and watches back off (doubling to 30 s).
 */
import { Logger } from '@nestjs/common';
import { Informer, metadataOnly, resourceListWatch, type KubeResources } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import type { SecretWatchSource } from '../secrets/secret-store';

const MAX_BACKOFF_MS = 30_000;

export class KubeSecretWatch implements SecretWatchSource {
  private readonly logger = new Logger('KubeSecretWatch');
  private informer?: Informer<KubeObject>;

  constructor(
    private readonly resources: KubeResources,
    private readonly namespace: string,
    private readonly retryMs: number,
  ) {}

  start(names: readonly string[], onChange: (name: string) => void): void {
    if (this.informer) return;
    const wanted = new Set(names);
    const source = resourceListWatch<KubeObject>(this.resources, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: this.namespace,
      metadataOnly: true,
    });
    const informer = new Informer<KubeObject>(metadataOnly(source), {
      name: `secrets in ${this.namespace}`,
      backoff: { initialMs: this.retryMs, maxMs: Math.max(this.retryMs, MAX_BACKOFF_MS), factor: 2, jitter: 0 },
      logger: { warn: (message) => this.logger.warn(`secret watch: ${message}`) },
    });
    const report = (secret: KubeObject): void => {
      const name = secret.metadata?.name;
      if (name && wanted.has(name)) onChange(name);
    };
    informer.on('add', report);
    informer.on('update', report);
    informer.on('delete', report);
    informer.start();
    this.informer = informer;
  }

  stop(): void {
    void this.informer?.stop();
    this.informer = undefined;
  }
}
