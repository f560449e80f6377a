/**
 * The engine a controller evaluates existing resources with, outside any admission's clock (the
 * background controller's generate and mutate-existing rules, the reports controller's background
 * scans), as Kyverno builds it for both: exceptions and size bounds from the caller, context entries
 * through the cluster loaders (ConfigMaps and Namespaces read live from the API server, apiCalls to
 * it or to services, egress-guarded; globalReference from the controller's own GlobalContextEntry
 * store; imageRegistry from registries with the controller's pull Secrets). Every evaluation has a
 * deadline.
 */
import {
  Engine,
  IMAGE_VERIFY_ANNOTATION,
  type CompiledPolicy,
  type EngineDependencies,
  type PolicyResponse,
  type ResourceRequest,
} from '@edict/engine';
import { deadlineAfter, type KubeObject } from '@edict/foundation';
import { isNotFound, type KubeResources } from '@edict/kube';
import { ClusterContextLoaders, type ApiCallers, type GlobalContextReader } from './cluster-context-loaders';
import { ClusterResourceLoader } from './cluster-resource-loader';
import type { ImageDataSource } from './image-data-source';

/** Longest one evaluation (with its context loads and reads) may take. */
export const CLUSTER_EVALUATION_TIMEOUT_MS = 30_000;
/** Longest one ConfigMap or Namespace read may take. */
const READ_TIMEOUT_MS = 5_000;

export interface ClusterEngineSources extends Pick<EngineDependencies, 'exceptions' | 'limits' | 'tracing'> {
  /** The controller's apiCall callers. */
  readonly callers: ApiCallers;
  /** The controller's GlobalContextEntry store, for globalReference entries. */
  readonly globalContext: GlobalContextReader;
  /** Registry access with the controller's pull Secrets, for imageRegistry entries. */
  readonly images: ImageDataSource;
}

export class ClusterEngine {
  private readonly engine: Engine;

  constructor(
    private readonly resources: KubeResources,
    sources: ClusterEngineSources,
  ) {
    const loaders = new ClusterContextLoaders(
      { get: (namespace, name) => this.read('v1', 'ConfigMap', namespace, name) as Promise<KubeObject | undefined> },
      sources.callers,
      sources.globalContext,
      sources.images,
    );
    this.engine = new Engine({
      exceptions: sources.exceptions,
      limits: sources.limits,
      loaders,
      resources: new ClusterResourceLoader(resources, { namespaceObject: (name) => this.namespace(name) }),
      ...(sources.tracing ? { tracing: sources.tracing } : {}),
    });
  }

  generate: Engine['generate'] = (compiled, request) =>
    this.engine.generate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  validate: Engine['validate'] = (compiled, request) =>
    this.engine.validate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  /**
   * A background scan of one resource (Kyverno's scanner): the validate rules (verifyImages checks
   * included), then, for a policy with verifyImages rules, the images verified again on the object
   * without its `kyverno.io/verify-images` annotation, their results added to the same response.
   */
  async scan(compiled: CompiledPolicy, request: ResourceRequest): Promise<PolicyResponse> {
    const deadline = deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS);
    const response = await this.engine.validate(compiled, request, { deadline });
    if (compiled.imageVerifyRules.length === 0 || !request.resource) return response;
    const images = await this.engine.verifyImages(
      compiled,
      { ...request, resource: withoutVerifiedAnnotation(request.resource) },
      { deadline },
    );
    return { ...response, rules: [...response.rules, ...images.rules] };
  }

  mutate: Engine['mutate'] = (compiled, request) =>
    this.engine.mutate(compiled, request, { deadline: deadlineAfter(CLUSTER_EVALUATION_TIMEOUT_MS) });

  /** A Namespace as it is now; undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined> {
    return this.read('v1', 'Namespace', undefined, name);
  }

  /** The labels of a namespace for namespaceSelector (`{}` when it is gone; undefined without a namespace). */
  async namespaceLabels(namespace: string | undefined): Promise<Record<string, string> | undefined> {
    if (!namespace) return undefined;
    return ((await this.namespace(namespace))?.metadata?.labels as Record<string, string> | undefined) ?? {};
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

/** The object as the scanner verifies it: what admission recorded is not taken on trust. */
function withoutVerifiedAnnotation(resource: KubeObject): KubeObject {
  const annotations = resource.metadata?.annotations;
  if (!annotations || !(IMAGE_VERIFY_ANNOTATION in annotations)) return resource;
  const { [IMAGE_VERIFY_ANNOTATION]: _recorded, ...rest } = annotations;
  return { ...resource, metadata: { ...resource.metadata, annotations: rest } };
}
