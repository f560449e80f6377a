import { isConflict, isNotFound, type InformerFactory, type KubeResources } from '@edict/kube';
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

/** The policy a queue key names, read afresh; undefined once it is gone. */
export async function readQueuedPolicy(
  resources: KubeResources,
  apiVersion: string,
  key: string,
): Promise<KubeObject | undefined> {
  const [kind, namespace, name] = key.split('/') as [string, string, string];
  try {
    const object = await resources.get<KubeObject>({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
    return { ...object, apiVersion: object.apiVersion || apiVersion, kind: object.kind || kind };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Claims a run by writing `status.lastExecutionTime` at the read resourceVersion: false when another
 * replica wrote first or the policy is gone, so each slot runs once across replicas.
 */
export async function claimExecution(
  resources: KubeResources,
  policy: KubeObject,
  lastExecutionTime: string,
): Promise<boolean> {
  const status = isRecord(policy.status) ? policy.status : {};
  try {
    await resources.replace({ ...policy, status: { ...status, lastExecutionTime } } as KubeObject, {
      subresource: 'status',
    });
    return true;
  } catch (error) {
    if (isConflict(error) || isNotFound(error)) return false;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
