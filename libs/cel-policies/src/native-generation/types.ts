/**
 * What the generator of Kubernetes' own admission policies reads and writes, as plain data. Kyverno
 * turns an eligible ClusterPolicy (one `validate.cel` rule) or ValidatingPolicy into a
 * ValidatingAdmissionPolicy with its binding, and a MutatingPolicy into a MutatingAdmissionPolicy
 * with its binding; the source policy's status says whether it did and, when not, why.
 */
import type { JsonObject } from '@edict/foundation';

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';

/** The admissionregistration versions a MutatingAdmissionPolicy may be written in, newest first. */
export const MAP_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;
export type MutatingAdmissionPolicyVersion = (typeof MAP_VERSIONS)[number];

/** One generated object (a policy or a binding), ready to create or to compare with what is stored. */
export interface GeneratedObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels: Record<string, string>;
    ownerReferences: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  spec: JsonObject;
}

/** A generated policy and its binding. */
export interface GeneratedPair {
  readonly policy: GeneratedObject;
  readonly binding: GeneratedObject;
}

/** The generator's decision for one source policy: the objects to keep, or why there are none. */
export type GenerationDecision =
  { readonly generate: true; readonly objects: GeneratedPair } | { readonly generate: false; readonly message: string };

/** The API resource a kind of `match.resources.kinds` resolves to (through discovery). */
export interface ResolvedKindResource {
  readonly group: string;
  readonly version: string;
  /** Plural, with the subresource when the kind names one (`pods/status`). */
  readonly resource: string;
}

/**
 * Resolves one `kinds` entry (`Pod`, `apps/v1/Deployment`, `Pod/status`) to the API resources serving
 * it; the builder refuses a kind that does not resolve to exactly one, as Kyverno does.
 */
export type KindResolver = (kind: string) => readonly ResolvedKindResource[];
