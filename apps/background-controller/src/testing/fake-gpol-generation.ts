/**
 * Typed fakes for GeneratingPolicy synchronize specs: a compiled policy on Namespace triggers, the
 * labels its downstream carries, and a GpolGeneration that writes ConfigMaps into a FakeCluster as
 * the generate controller would (a dry run writes nothing).
 */
import {
  compileGeneratingPolicy,
  LABEL_SOURCE_UID,
  LABEL_TRIGGER_NAME,
  type CompiledGeneratingPolicy,
} from '@edict/cel-policies';
import {
  LABEL_MANAGED_BY,
  LABEL_POLICY_NAME,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_TRIGGER_VERSION,
} from '@edict/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { GpolGeneration, GpolGenerationOptions, GpolGenerationResult } from '../gpol-sync/gpol-generation';
import type { FakeCluster } from './fake-cluster';

export const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

export function gpol(name: string, evaluation: JsonObject, namespace?: string): CompiledGeneratingPolicy {
  return compileGeneratingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE'] }],
      },
      evaluation,
      variables: [{ name: 'ns', expression: 'object.metadata.name' }],
      // A NamespacedGeneratingPolicy's generator has no namespace argument: it generates in its own.
      generate: [
        {
          expression: `generator.Apply(${namespace ? '' : 'variables.ns, '}[{"kind": "ConfigMap", "metadata": dyn({"name": "x"})}])`,
        },
      ],
    },
  });
}

export function gpolLabels(policy: string, trigger: KubeObject, source?: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: 'kyverno',
    [LABEL_POLICY_NAME]: policy,
    [LABEL_TRIGGER_NAME]: trigger.metadata!.name!,
    [LABEL_TRIGGER_NAMESPACE]: trigger.metadata?.namespace ?? '',
    [LABEL_TRIGGER_UID]: trigger.metadata!.uid!,
    [LABEL_TRIGGER_KIND]: trigger.kind!,
    [LABEL_TRIGGER_GROUP]: '',
    [LABEL_TRIGGER_VERSION]: 'v1',
    ...(source ? { [LABEL_SOURCE_UID]: source } : {}),
  };
}

/**
 * A generation as the generate controller does it, for a namespace trigger: a ConfigMap named
 * `names()` with `data()` in the trigger's namespace, created or updated; nothing when `matches` is false.
 */
export class FakeGpolGeneration implements GpolGeneration {
  names = (_policy: CompiledGeneratingPolicy): string[] => ['generated'];
  data = (): Record<string, string> => ({ key: 'value' });
  matches = true;
  skipped = false;
  calls = 0;

  constructor(private readonly cluster: FakeCluster) {}

  async generate(
    policy: CompiledGeneratingPolicy,
    trigger: KubeObject,
    options: GpolGenerationOptions = {},
  ): Promise<GpolGenerationResult> {
    this.calls++;
    if (this.skipped) return { status: 'skipped', objects: [] };
    if (!this.matches) return { status: 'generated', objects: [] };
    const objects: KubeObject[] = [];
    for (const name of this.names(policy)) {
      const object: KubeObject = {
        ...CM,
        metadata: { name, namespace: trigger.metadata!.name!, labels: gpolLabels(policy.name, trigger) },
        data: this.data(),
      };
      const existing = this.cluster.find('v1', 'ConfigMap', name, trigger.metadata!.name!);
      if (options.dryRun) objects.push(existing ?? object);
      else if (!existing) objects.push(await this.cluster.create(object));
      else {
        const metadata = { ...object.metadata, resourceVersion: existing.metadata.resourceVersion ?? '' };
        objects.push(await this.cluster.replace({ ...object, metadata }));
      }
    }
    return { status: 'generated', objects };
  }
}
