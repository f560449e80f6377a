/**
 * The engine a controller evaluates existing resources with, outside any admission's clock (the
 * background controller's rules, the reports controller's background scans): exceptions and size
 * bounds from the caller, context entries through the cluster loaders (ConfigMaps and Namespaces
 * read live from the API server, apiCalls to it or to services, egress-guarded). GlobalContextEntries
 * and imageRegistry entries are not loaded here yet: rules using them end in error with a message
 * naming who does not load them. Every evaluation has a deadline.
 */
import { Engine, type EngineDependencies } from '@edict/engine';
import { deadlineAfter, type KubeObject } from '@edict/foundation';
import { isNotFound, type KubeResources } from '@edict/kube';
import { ClusterContextLoaders } from './cluster-context-loaders';
import { ClusterResourceLoader } from './cluster-resource-loader';
import { ContextApiCallers, type ApiCallSettings } from './context-api-callers';
import { unavailableImageData } from './image-data-source';

/** Longest one evaluation (with its context loads and reads) may take. */
export const CLUSTER_EVALUATION_TIMEOUT_MS = 30_000;
/** Longest one ConfigMap or Namespace read may take. */
const READ_TIMEOUT_MS = 5_000;

export interface ClusterEngineSources extends Pick<EngineDependencies, 'exceptions' | 'limits'> {
  /** Who evaluates, for the error of a rule reading a global context entry ("background scans"). */
  readonly evaluator: string;
}

export class ClusterEngine {
  private readonly engine: Engine;
  private readonly callers: ContextApiCallers;

  constructor(
    settings: ApiCallSettings,
    private readonly resources: KubeResources,
    sources: ClusterEngineSources,
  ) {
    this.callers = new ContextApiCallers(settings, resources);
    const loaders = new ClusterContextLoaders(
      { get: (namespace, name) => this.read('v1', 'ConfigMap', namespace, name) as Promise<KubeObject | undefined> },
      this.callers,
      {
        read: (name) => {
          throw new Error(
            `global context entry "${name}": global context entries are not loaded by ${sources.evaluator}`,
          );
        },
      },
      unavailableImageData,
    );
    this.engine = new Engine({
      exceptions: sources.exceptions,
      limits: sources.limits,
      loaders,
      resources: new ClusterResourceLoader(resources, { namespaceObject: (name) => this.namespace(name) }),
    });
  }

  generate: Engine['generate'] = (compiled, request) =>
    this.engine.generate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  validate: Engine['validate'] = (compiled, request) =>
    this.engine.validate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  mutate: Engine['mutate'] = (compiled, request) =>
    this.engine.mutate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  /** A Namespace as it is now; undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined> {
    return this.read('v1', 'Namespace', undefined, name);
  }

  /** Ends the egress client's connections. */
  close(): void {
    this.callers.onModuleDestroy();
  }

  private async read(apiVersion: string, kind: string, namespace: string | undefined, name: string) {
    try {
      const path = await this.resources.path({ apiVersion, kind, namespace, name });
      return await this.resources.http.json<KubeObject>({ path, totalTimeoutMs: READ_TIMEOUT_MS });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
