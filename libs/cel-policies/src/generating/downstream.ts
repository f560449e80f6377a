import { CelPortError, type CelGeneratorPort } from '@edict/cel';
import {
  LABEL_MANAGED_BY,
  LABEL_POLICY_NAME,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_TRIGGER_VERSION,
  MANAGED_BY_KYVERNO,
} from '@edict/engine';
import { cloneJson, isObject, jsonSizeWithin, setOwn, type JsonObject, type KubeObject } from '@edict/foundation';
import type { GeneratingPolicyLimits, GenerationMode } from './types';

/** The labels a GeneratingPolicy's downstream object carries besides classic generate's (pkg/background/common). */
export const LABEL_TRIGGER_NAME = 'generate.kyverno.io/trigger-name';
/** Set when the object was read from the cluster (it has a resourceVersion): the uid of its source. */
export const LABEL_SOURCE_UID = 'generate.kyverno.io/source-uid';

/** The policy and trigger a generation runs for (Kyverno's SetGenerateContext). */
export interface GenerationOrigin {
  readonly policyName: string;
  /** A NamespacedGeneratingPolicy's namespace: it generates there only, never cluster-scoped objects. */
  readonly policyNamespace?: string;
  readonly triggerName: string;
  readonly triggerNamespace: string;
  readonly triggerGroup: string;
  readonly triggerVersion: string;
  readonly triggerKind: string;
  readonly triggerUid: string;
}

/** Server-set metadata a generated object never carries into its create (the API server sets its own). */
const SERVER_FIELDS = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'selfLink'];

/**
 * The generator port of one evaluation: records what `generator.Apply` asks for, as Kyverno's
 * context provider does before it creates anything. A List object stands for its items; each
 * object goes to the namespace Apply named (none for a cluster-scoped kind, which a namespaced
 * policy may not generate); in `controller` mode it gets the labels naming the policy and the
 * trigger, in `cli` mode it is tidied as Kyverno's CLI records it. Bounded in count and size:
 * past a bound the call fails, and with it the evaluation (nothing is generated).
 */
export class DownstreamRecorder implements CelGeneratorPort {
  readonly objects: KubeObject[] = [];

  constructor(
    private readonly origin: GenerationOrigin,
    private readonly mode: GenerationMode,
    private readonly limits: GeneratingPolicyLimits,
    private readonly isNamespaced: (apiVersion: string, kind: string) => boolean | undefined = () => undefined,
  ) {}

  apply(namespace: string, objects: readonly JsonObject[]): void {
    for (const object of objects) {
      for (const item of expand(object)) this.record(namespace, item);
    }
  }

  private record(namespace: string, source: JsonObject): void {
    if (this.objects.length >= this.limits.maxObjects) {
      throw new Error(`more than ${this.limits.maxObjects} objects generated for one trigger`);
    }
    if (jsonSizeWithin(source, this.limits.maxObjectBytes, new Map()) > this.limits.maxObjectBytes) {
      throw new Error(`a generated object is larger than ${this.limits.maxObjectBytes} bytes`);
    }
    const object = cloneJson(source) as KubeObject;
    const apiVersion = object.apiVersion;
    const kind = object.kind;
    if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
      throw new Error('a generated object needs apiVersion and kind');
    }
    const metadata: Record<string, unknown> = isObject(object.metadata) ? { ...object.metadata } : {};
    if (typeof metadata.name !== 'string' || metadata.name === '') {
      throw new Error(`a generated ${kind} needs metadata.name`);
    }
    let target = namespace;
    if (this.isNamespaced(apiVersion, kind) === false) {
      if (namespace !== '' && this.origin.policyNamespace) {
        throw new CelPortError(
          `cross-scope generation denied: a policy scoped to namespace "${namespace}" cannot generate cluster-scoped resource ${apiVersion}/${kind}`,
          'Forbidden',
        );
      }
      target = '';
    }
    if (this.mode === 'cli') {
      // Kyverno's CLI keeps what the expression built, minus what a server would have set.
      for (const field of ['uid', 'managedFields', 'annotations', 'resourceVersion', 'creationTimestamp']) {
        delete metadata[field];
      }
    } else {
      const read = typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '';
      const labels = labelsOf(metadata.labels);
      labels[LABEL_MANAGED_BY] = MANAGED_BY_KYVERNO;
      labels[LABEL_POLICY_NAME] = this.origin.policyName;
      labels[LABEL_TRIGGER_NAME] = this.origin.triggerName;
      labels[LABEL_TRIGGER_NAMESPACE] = this.origin.triggerNamespace;
      labels[LABEL_TRIGGER_UID] = this.origin.triggerUid;
      labels[LABEL_TRIGGER_KIND] = this.origin.triggerKind;
      labels[LABEL_TRIGGER_GROUP] = this.origin.triggerGroup;
      labels[LABEL_TRIGGER_VERSION] = this.origin.triggerVersion;
      if (read) labels[LABEL_SOURCE_UID] = typeof metadata.uid === 'string' ? metadata.uid : '';
      metadata.labels = labels;
      for (const field of SERVER_FIELDS) delete metadata[field];
    }
    if (target === '') delete metadata.namespace;
    else metadata.namespace = target;
    object.metadata = metadata as KubeObject['metadata'];
    this.objects.push(object);
  }
}

/** A List object's items (each with the list's apiVersion and item kind when it has none), or the object. */
function expand(object: JsonObject): JsonObject[] {
  const items = object.items;
  if (!Array.isArray(items)) return [object];
  const listKind = typeof object.kind === 'string' ? object.kind.replace(/List$/, '') : '';
  return items.map((item, i) => {
    if (!isObject(item)) throw new Error(`item ${i} of the generated list is not an object`);
    return {
      ...item,
      ...(item.apiVersion === undefined && typeof object.apiVersion === 'string'
        ? { apiVersion: object.apiVersion }
        : {}),
      ...(item.kind === undefined && listKind && listKind !== object.kind ? { kind: listKind } : {}),
    };
  });
}

function labelsOf(value: unknown): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!isObject(value)) return labels;
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') setOwn(labels, key, item);
  return labels;
}
