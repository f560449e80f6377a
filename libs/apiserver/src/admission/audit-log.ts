/**
 * The audit annotations admission adds to requests, as kube-apiserver's audit events carry them
 * (`annotations` of the request's event): ValidatingAdmissionPolicy `auditAnnotations` keyed
 * `<policy>/<key>` and the `validation.policy.admission.k8s.io/validation_failure` entries of Audit
 * actions. There is no audit backend: tests and `npm start` read them here. Bounded: the oldest
 * entries are dropped past the limit.
 */
import type { AdmissionOperation } from './types';

export interface AuditedRequest {
  readonly operation: AdmissionOperation;
  /** `group/version` of the resource (`v1`, `apps/v1`). */
  readonly apiVersion: string;
  /** The plural resource and, when there is one, `/subresource`. */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
  readonly dryRun: boolean;
  readonly annotations: Readonly<Record<string, string>>;
}

export class AuditLog {
  private readonly entries: AuditedRequest[] = [];

  constructor(private readonly limit = 10_000) {}

  record(entry: AuditedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  /** Every request admission annotated, oldest first. */
  requests(): readonly AuditedRequest[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries.length = 0;
  }
}
