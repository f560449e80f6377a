import type { EvaluationDeadline, JsonObject, JsonValue, KubeObject } from '@edict/foundation';
import type { APICall, ImageRegistryCredentials } from '../policy/types';
import type { AccessReviewDecision, AccessReviewRequest } from '@edict/cel';
import type { OciReader, TrustedRootSource, VerificationCache } from '@edict/image-verify';

/** Loaders may answer from a cache (synchronously) or over the network. */
export type Awaitable<T> = T | Promise<T>;

/**
 * Who asks a loader: the namespace of the calling Policy, undefined for a ClusterPolicy. Loaders
 * that reach the cluster use it to keep a namespaced Policy inside its own namespace.
 */
export interface LoaderScope {
  readonly policyNamespace?: string;
  /** The evaluation's deadline: loaders that wait bound the wait by a share of what is left. */
  readonly deadline?: EvaluationDeadline;
}

/**
 * What the engine reads from outside, behind interfaces: the admission controller backs these with
 * informers and HTTP, the CLI with the test's mocks. Every method may be slow; none may throw for
 * "not found" (return undefined instead) so rules can tell a missing object from a failure.
 */
export interface ContextLoaders {
  /** A ConfigMap's object, or undefined when it does not exist. */
  configMap(namespace: string, name: string, scope: LoaderScope): Awaitable<KubeObject | undefined>;
  /** The response of a Kubernetes API call (`urlPath`) or service call, already JSON-decoded. */
  apiCall(call: APICall, scope: LoaderScope): Awaitable<JsonValue | undefined>;
  /** A GlobalContextEntry's cached data (`name` may address a projection: `entry.projection`). */
  globalReference(name: string, scope: LoaderScope): Awaitable<JsonValue | undefined>;
  /** Image registry metadata (config, manifest) for an image reference, read with the entry's credentials. */
  imageRegistry(
    reference: string,
    credentials: ImageRegistryCredentials | undefined,
    scope: LoaderScope,
  ): Awaitable<JsonObject | undefined>;
  /**
   * Registry access for verifyImages rules. Absent, such rules answer `error` ("image verification
   * is not configured"): images are never admitted unverified.
   */
  readonly imageVerification?: ImageVerificationLoader;
}

/** Which credentials a verifyImages entry reads the registry with (its `imageRegistryCredentials`). */
export interface OciAccessRequest {
  /** Docker config Secrets named by the entry; undefined means the controller's default pull Secrets. */
  readonly secrets?: readonly string[];
  /** The namespace of the resource under evaluation (its pull Secrets), or of the Policy. */
  readonly namespace?: string;
  readonly allowInsecure?: boolean;
  /** Cloud credential helpers the entry names; a loader that has none must refuse them. */
  readonly providers?: readonly string[];
}

export interface ImageVerificationLoader {
  /** A registry reader with the given credentials (behind the egress guards and the client's caps). */
  oci(access: OciAccessRequest): OciReader;
  /** Shared, bounded verification results; used by entries with `useCache` (the default). */
  readonly cache?: VerificationCache;
  /**
   * Sigstore's trusted root the controller is configured with (Kyverno's TUF settings), for Cosign
   * entries that give no roots or log keys of their own and for Sigstore bundles; undefined when
   * none is configured. Read only when an entry needs it.
   */
  trustedRoot?(): Promise<TrustedRootSource | undefined>;
}

/**
 * Resources that rules read: mutate-existing targets, generate clone sources, validate.cel
 * parameter objects and the request's Namespace.
 */
export interface ResourceLoader {
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): Awaitable<KubeObject | undefined>;
  list(apiVersion: string, kind: string, namespace?: string, labelSelector?: JsonObject): Awaitable<KubeObject[]>;
  /** Whether the kind is namespaced; undefined when the API server does not serve it. */
  namespaced(apiVersion: string, kind: string): Awaitable<boolean | undefined>;
}

/**
 * Authorization checks of CEL's `authorizer` (validate.cel rules): the admission controller asks the
 * API server with SubjectAccessReviews. A review that cannot be made throws; the rule sees an
 * errored decision.
 */
export interface AccessReviewer {
  review(request: AccessReviewRequest): Awaitable<AccessReviewDecision>;
}
