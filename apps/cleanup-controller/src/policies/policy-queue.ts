import type { InformerFactory } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import { WorkQueue } from '@edict/work-queue';

export interface PolicyQueueOptions {
  readonly informers: InformerFactory;
  readonly apiVersion: string;
  readonly kinds: readonly string[];
  readonly workers: number;
  readonly watchTimeoutSeconds: number;
  /** One look at a policy, by its `kind/namespace/name` key; may queue it again for its next slot. */
  readonly handle: (key: string, queue: WorkQueue) => Promise<void>;
}

/**
 * The leader's loop of a scheduled policy kind: informers on the kinds queue every added or updated
 * policy by key, workers handle them, until `signal` aborts; then informers and queue are stopped.
 */
export async function runPolicyQueue(options: PolicyQueueOptions, signal: AbortSignal): Promise<void> {
  const queue: WorkQueue = new WorkQueue((key) => options.handle(key, queue), options.workers);
  const informers = options.kinds.map((kind) => {
    const informer = options.informers.create<KubeObject>({
      apiVersion: options.apiVersion,
      kind,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
    });
    const enqueue = (object: KubeObject) => queue.add(policyKey(kind, object));
    informer.on('add', enqueue);
    informer.on('update', enqueue);
    informer.start();
    return informer;
  });
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await Promise.all(informers.map((informer) => informer.stop()));
  await queue.stop();
}

/** `kind/namespace/name`: the queue key of a policy. */
export function policyKey(kind: string, object: KubeObject): string {
  return `${kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
