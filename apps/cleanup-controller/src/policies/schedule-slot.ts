/**
 * Which schedule slot a cleanup policy is at, decided from its status and the clock alone, so that
 * any replica (a new leader after a failover too) reaches the same answer: the next slot after the
 * last execution (or after the policy's creation when it never ran) is due once the clock passes it.
 * Slots missed while nobody led run once, not once each.
 */
import type { CronSchedule } from '@edict/engine';

/** What a slot is decided from: a cleanup policy's, or a DeletingPolicy's, status and creation time. */
export interface ScheduledPolicy {
  readonly metadata: { readonly creationTimestamp?: string };
  readonly status?: { readonly lastExecutionTime?: string };
}

export type SlotDecision =
  | { readonly kind: 'run'; readonly slot: Date }
  | { readonly kind: 'wait'; readonly until: Date }
  | { readonly kind: 'never' };

export function decideSlot(schedule: CronSchedule, policy: ScheduledPolicy, now: Date): SlotDecision {
  const since = timeOf(policy.status?.lastExecutionTime) ?? timeOf(policy.metadata.creationTimestamp) ?? now;
  const next = schedule.next(since);
  if (!next) return { kind: 'never' };
  return next.getTime() > now.getTime() ? { kind: 'wait', until: next } : { kind: 'run', slot: next };
}

function timeOf(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
