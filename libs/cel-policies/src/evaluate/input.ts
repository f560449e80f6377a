import type { KyvernoCelPorts } from '@edict/cel';
import type { EvaluationDeadline, JsonValue, KubeObject } from '@edict/foundation';
import type { AccessReviewer, ResourceRequest } from '@edict/engine';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';

/** Kyverno's CEL library ports (http, resources, globalContext, imageData); each may be absent. */
export type CelLibraryPorts = KyvernoCelPorts;

export interface CelPolicyInput {
  /** The classic engine's request (object, oldObject, operation, user, subresource, dryRun, admissionRequest). */
  request: ResourceRequest;
  /** Group/version/plural of the request's resource (needed by matchConstraints). */
  resource: { group: string; version: string; resource: string };
  /** null: none (cluster-scoped, or the CLI without a cluster). */
  namespaceObject?: KubeObject | null;
  /** evaluation.mode JSON: the payload, bound as `object`. */
  jsonPayload?: JsonValue;
}

export interface CelPolicyContext {
  /** Kyverno's CEL libraries' ports (http, resource, globalContext, imageData). */
  ports: CelLibraryPorts;
  authorizer?: AccessReviewer;
  deadline?: EvaluationDeadline;
  /** The exceptions that may apply (any policy's: those naming this policy are picked). */
  exceptions?: readonly CompiledCelPolicyException[];
  /** Kyverno's `--allowHTTPInNamespacedPolicies` (default false). */
  allowHttpInNamespacedPolicies?: boolean;
  /** Now, in epoch milliseconds, for exceptions' expiresAt (default: the system clock). */
  now?: () => number;
}
