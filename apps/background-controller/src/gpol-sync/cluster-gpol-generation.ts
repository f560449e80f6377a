/**
 * The cluster's GpolGeneration: the generate controller's generateForTrigger with the app's
 * cluster access, Kyverno's CEL ports and the CEL PolicyExceptions in force; the trigger taken as
 * created now by nobody, as Kyverno does for synchronize. A dry run reads the cluster and writes
 * nothing.
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import type { KubeResources } from '@edict/kube';
import type { ClusterEngine, ClusterKyvernoCelPorts } from '@edict/context';
import type { CelPolicyCache } from '@edict/policy';
import { generateForTrigger, type GpolGenerateDeps } from '../generate/gpol-generate';
import { generatingRequestDeps } from '../generate/gpol-request-deps';
import { kubeClusterObjects } from '../update-requests/cluster-objects';
import type { GpolGeneration, GpolGenerationOptions, GpolGenerationResult } from './gpol-generation';
import type { BackgroundMetrics } from '../metrics/background-metrics';

export class ClusterGpolGeneration implements GpolGeneration {
  private readonly deps: GpolGenerateDeps;
  private readonly dryRunDeps: GpolGenerateDeps;

  constructor(
    resources: KubeResources,
    celPorts: ClusterKyvernoCelPorts,
    cache: CelPolicyCache,
    engine: Pick<ClusterEngine, 'namespace'>,
    metrics: Pick<BackgroundMetrics, 'generatingPolicyResult'>,
  ) {
    const cluster = kubeClusterObjects(resources);
    // The same dependencies as an UpdateRequest's generation.
    this.deps = { ...generatingRequestDeps(cache, celPorts, resources, engine, metrics), cluster };
    // Reads go to the cluster, writes only answer what they would have written.
    this.dryRunDeps = {
      ...this.deps,
      cluster: {
        ...cluster,
        create: async (object) => object,
        replace: async (object) => object,
        delete: async () => undefined,
      },
    };
  }

  async generate(
    policy: CompiledGeneratingPolicy,
    trigger: KubeObject,
    options: GpolGenerationOptions = {},
  ): Promise<GpolGenerationResult> {
    const outcome = await generateForTrigger(policy, trigger, options.dryRun ? this.dryRunDeps : this.deps);
    if (outcome.error !== undefined) throw new Error(outcome.error);
    if (outcome.result?.status === 'skip') return { status: 'skipped', objects: [] };
    return { status: 'generated', objects: outcome.generated };
  }
}
