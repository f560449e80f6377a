/**
 * Where the CEL policy cache's objects come from: informers on the policies.kyverno.io kinds
 * (ValidatingPolicy, ImageValidatingPolicy, MutatingPolicy, GeneratingPolicy, their Namespaced forms,
 * and PolicyException), read at v1. Tests pass fakes; the feeds beside the validating ones are
 * optional there.
 */
import type { InformerFactory } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import { informerSettings, type ObjectFeed } from '../informers/policy-feeds';
import type { PolicyModuleOptions } from '../policy.options';

export interface CelPolicyFeeds {
  readonly validatingPolicies: ObjectFeed<KubeObject>;
  readonly namespacedValidatingPolicies: ObjectFeed<KubeObject>;
  readonly imageValidatingPolicies?: ObjectFeed<KubeObject>;
  readonly namespacedImageValidatingPolicies?: ObjectFeed<KubeObject>;
  readonly mutatingPolicies?: ObjectFeed<KubeObject>;
  readonly namespacedMutatingPolicies?: ObjectFeed<KubeObject>;
  readonly generatingPolicies?: ObjectFeed<KubeObject>;
  readonly namespacedGeneratingPolicies?: ObjectFeed<KubeObject>;
  readonly exceptions: ObjectFeed<KubeObject>;
}

export const VALIDATING_POLICY_REF = { apiVersion: 'policies.kyverno.io/v1', kind: 'ValidatingPolicy' } as const;
export const NAMESPACED_VALIDATING_POLICY_REF = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'NamespacedValidatingPolicy',
} as const;
export const IMAGE_VALIDATING_POLICY_REF = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ImageValidatingPolicy',
} as const;
export const NAMESPACED_IMAGE_VALIDATING_POLICY_REF = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'NamespacedImageValidatingPolicy',
} as const;
export const MUTATING_POLICY_REF = { apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy' } as const;
export const NAMESPACED_MUTATING_POLICY_REF = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'NamespacedMutatingPolicy',
} as const;
export const GENERATING_POLICY_REF = { apiVersion: 'policies.kyverno.io/v1', kind: 'GeneratingPolicy' } as const;
export const NAMESPACED_GENERATING_POLICY_REF = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'NamespacedGeneratingPolicy',
} as const;
export const CEL_POLICY_EXCEPTION_REF = { apiVersion: 'policies.kyverno.io/v1', kind: 'PolicyException' } as const;

/** Informers over the API server for the CEL policy kinds (all namespaces). */
export function createCelPolicyFeeds(factory: InformerFactory, options: PolicyModuleOptions): CelPolicyFeeds {
  const common = informerSettings(options);
  return {
    validatingPolicies: factory.create<KubeObject>({ ...VALIDATING_POLICY_REF, ...common }),
    namespacedValidatingPolicies: factory.create<KubeObject>({ ...NAMESPACED_VALIDATING_POLICY_REF, ...common }),
    imageValidatingPolicies: factory.create<KubeObject>({ ...IMAGE_VALIDATING_POLICY_REF, ...common }),
    namespacedImageValidatingPolicies: factory.create<KubeObject>({
      ...NAMESPACED_IMAGE_VALIDATING_POLICY_REF,
      ...common,
    }),
    mutatingPolicies: factory.create<KubeObject>({ ...MUTATING_POLICY_REF, ...common }),
    namespacedMutatingPolicies: factory.create<KubeObject>({ ...NAMESPACED_MUTATING_POLICY_REF, ...common }),
    generatingPolicies: factory.create<KubeObject>({ ...GENERATING_POLICY_REF, ...common }),
    namespacedGeneratingPolicies: factory.create<KubeObject>({ ...NAMESPACED_GENERATING_POLICY_REF, ...common }),
    exceptions: factory.create<KubeObject>({ ...CEL_POLICY_EXCEPTION_REF, ...common }),
  };
}
