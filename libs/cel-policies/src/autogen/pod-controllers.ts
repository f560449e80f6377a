import type { AutogenTarget } from '../api/types';

/**
 * Kyverno's pod-controller autogen for CEL policies: which controllers it knows, and how a Pod
 * expression is rewritten for each family. Deployments, DaemonSets, ReplicaSets, StatefulSets and
 * Jobs carry the pod under `spec.template` (config `defaults`); CronJobs under
 * `spec.jobTemplate.spec.template` (config `cronjobs`).
 */
export type AutogenFamily = 'defaults' | 'cronjobs';

export const POD_CONTROLLERS: Readonly<Record<string, { target: AutogenTarget; family: AutogenFamily }>> = {
  daemonsets: {
    target: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' },
    family: 'defaults',
  },
  deployments: {
    target: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
    family: 'defaults',
  },
  replicasets: {
    target: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' },
    family: 'defaults',
  },
  statefulsets: {
    target: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' },
    family: 'defaults',
  },
  jobs: { target: { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' }, family: 'defaults' },
  cronjobs: {
    target: { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' },
    family: 'cronjobs',
  },
};

/** The field prefixes rewritten per family: `object.spec` and `object.metadata` (and oldObject's). */
export const FAMILY_REPLACEMENTS: Readonly<Record<AutogenFamily, readonly { from: string; to: string }[]>> = {
  defaults: [
    { from: 'spec', to: 'spec.template.spec' },
    { from: 'metadata', to: 'spec.template.metadata' },
  ],
  cronjobs: [
    { from: 'spec', to: 'spec.jobTemplate.spec.template.spec' },
    { from: 'metadata', to: 'spec.jobTemplate.spec.template.metadata' },
  ],
};
