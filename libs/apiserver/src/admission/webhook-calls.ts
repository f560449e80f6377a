/**
 * The admission webhooks the server called, request by request: which webhook, for which
 * operation on which object. Tests read it to see what reached a webhook, e.g. that an admission
 * policy refused a request before any webhook review. Bounded: the oldest calls are dropped.
 */
import type { AdmissionOperation } from './types';

export interface WebhookCall {
  /** The webhook's name (`validate.kyverno.svc-fail`). */
  readonly webhook: string;
  readonly kind: 'mutating' | 'validating';
  readonly operation: AdmissionOperation;
  /** The plural resource and, when there is one, `/subresource`. */
  readonly resource: string;
  readonly namespace: string;
  /** '' when the server generates the name. */
  readonly name: string;
}

export class WebhookCallLog {
  private readonly entries: WebhookCall[] = [];

  constructor(private readonly limit = 10_000) {}

  record(call: WebhookCall): void {
    this.entries.push(call);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  /** Every call made, oldest first. */
  calls(): readonly WebhookCall[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries.length = 0;
  }
}
