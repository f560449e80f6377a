/**
 * The election record kept in a Lease's spec (client-go's LeaderElectionRecord), and its mapping to
 * and from `coordination.k8s.io/v1` LeaseSpec.
 */
import type { V1LeaseSpec } from '@kubernetes/client-node';
import { microTime, parseKubeTime } from '@edict/kube/client';

export interface LeaderElectionRecord {
  /** Empty when nobody holds the lease (released): anyone may take it at once. */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** Epoch milliseconds. */
  readonly acquireTime?: number;
  readonly renewTime?: number;
  readonly leaseTransitions: number;
}

export function recordToLeaseSpec(record: LeaderElectionRecord): V1LeaseSpec {
  // client-node passes MicroTime strings through untouched; a Date would serialize with 3 digits.
  const spec: Record<string, unknown> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = microTime(new Date(record.acquireTime));
  if (record.renewTime !== undefined) spec.renewTime = microTime(new Date(record.renewTime));
  return spec as V1LeaseSpec;
}

export function leaseSpecToRecord(spec: V1LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseKubeTime(spec?.acquireTime)?.getTime(),
    renewTime: parseKubeTime(spec?.renewTime)?.getTime(),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}
