/** ValidatingAdmissionPolicies and bindings for specs. */
import type { JsonObject } from '@edict/foundation';

export const DEPLOYMENT_RULES = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};

export function vap(name: string, spec: JsonObject, apiVersion = 'admissionregistration.k8s.io/v1'): JsonObject {
  return {
    apiVersion,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: DEPLOYMENT_RULES, ...spec },
  };
}

export function binding(name: string, policyName: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

export function deployment(name: string, replicas: number, change: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'team-a', labels: { app: name } },
    spec: { replicas },
    ...change,
  };
}

export function configMap(name: string, data: Record<string, string>, labels: Record<string, string> = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a', labels }, data };
}
