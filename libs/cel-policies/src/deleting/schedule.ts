import { deletingProgramsOf } from './compile';
import type { CompiledDeletingPolicy } from './compiled-policy';

/**
 * The policy's first schedule slot strictly after `after` (its cron, in UTC, as Kyverno's cronexpr
 * reads it), or undefined when the schedule has none within five years.
 */
export function nextExecutionTime(compiled: CompiledDeletingPolicy, after: Date): Date | undefined {
  return deletingProgramsOf(compiled).cron.next(after);
}

/**
 * When the policy is next due, as Kyverno computes it: the slot after its last execution
 * (status.lastExecutionTime), or after its creation when it never ran.
 */
export function executionTime(
  compiled: CompiledDeletingPolicy,
  status: { lastExecutionTime?: string } | undefined,
  creationTimestamp: string | undefined,
  now: Date,
): Date | undefined {
  const since = timeOf(status?.lastExecutionTime) ?? timeOf(creationTimestamp) ?? now;
  return nextExecutionTime(compiled, since);
}

function timeOf(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
