/** What every operation of one test sees: the clients, the resolved settings, the cleanup list. */
import type { JsonObject } from '@edict/foundation';
import type { ClusterClient, PropagationPolicy } from '../cluster/cluster-client';
import type { ChainsawConfiguration, ChainsawTest, Step, TimeoutKind } from '../load/model';
import { DEFAULT_TIMEOUTS } from '../load/model';
import type { ProcessRunner } from '../process/process-runner';

export interface RunSettings {
  readonly timeoutScale: number;
  readonly timeoutFloorMs: number;
  readonly execTimeoutScale: number;
  readonly sleepScale: number;
  readonly pollIntervalMs: number;
  readonly kubeconfigPath?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly values: JsonObject;
}

/** An object the test created, to delete when the test ends. */
export interface CreatedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export class TestContext {
  /** Objects created, per step index, in creation order. */
  readonly created = new Map<number, CreatedObject[]>();

  constructor(
    readonly test: ChainsawTest,
    readonly configuration: ChainsawConfiguration,
    readonly settings: RunSettings,
    readonly client: ClusterClient,
    readonly processes: ProcessRunner,
    readonly namespace: string,
  ) {}

  /** The operation's timeout after overrides (operation, step, test, configuration) and scaling. */
  timeout(kind: TimeoutKind, step: Step | undefined, operationTimeout?: number): number {
    const raw =
      operationTimeout ??
      step?.timeouts[kind] ??
      this.test.timeouts[kind] ??
      this.configuration.timeouts[kind] ??
      DEFAULT_TIMEOUTS[kind];
    const scale = kind === 'exec' ? this.settings.execTimeoutScale : this.settings.timeoutScale;
    return Math.max(this.settings.timeoutFloorMs, raw * scale);
  }

  template(step: Step | undefined, operationTemplate?: boolean): boolean {
    return operationTemplate ?? step?.template ?? this.test.template ?? this.configuration.template;
  }

  propagation(step: Step | undefined, operation?: PropagationPolicy): PropagationPolicy {
    return (
      operation ??
      step?.deletionPropagationPolicy ??
      this.test.deletionPropagationPolicy ??
      this.configuration.deletionPropagationPolicy
    );
  }

  recordCreated(stepIndex: number, object: JsonObject): void {
    const metadata = (object['metadata'] ?? {}) as { name?: string; namespace?: string };
    if (!metadata.name) return;
    const list = this.created.get(stepIndex) ?? [];
    const entry: CreatedObject = {
      apiVersion: String(object['apiVersion']),
      kind: String(object['kind']),
      name: metadata.name,
      namespace: metadata.namespace,
    };
    if (!list.some((o) => sameObject(o, entry))) list.push(entry);
    this.created.set(stepIndex, list);
  }
}

function sameObject(a: CreatedObject, b: CreatedObject): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
}

export function describeObject(object: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string {
  const metadata = (object.metadata ?? {}) as { name?: string; namespace?: string };
  return [object.apiVersion, object.kind, metadata.namespace, metadata.name]
    .filter((p) => p !== undefined && p !== '')
    .join('/');
}
