/**
 * The election record kept in a Lease's spec (client-go's LeaderElectionRecord), and its mapping to
 * and from `coordination.k8s.io/v1` LeaseSpec.
 */
import type { V1LeaseSpec } from '@kubernetes/client-node';
import { formatMicroTime, parseMicroTime } from './micro-time';

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
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  return spec as V1LeaseSpec;
}

export function leaseSpecToRecord(spec: V1LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseMicroTime(spec?.acquireTime),
    renewTime: parseMicroTime(spec?.renewTime),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}
