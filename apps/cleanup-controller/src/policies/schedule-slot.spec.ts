import { describe, expect, it } from 'vitest';
import { parseCronSchedule, type CleanupPolicy } from '@edict/engine';
import { decideSlot } from './schedule-slot';

const everyMinute = parseCronSchedule('*/1 * * * *');

function policy(creationTimestamp: string, lastExecutionTime?: string): CleanupPolicy {
  return {
    kind: 'ClusterCleanupPolicy',
    metadata: { name: 'p', creationTimestamp },
    spec: { schedule: '*/1 * * * *' },
    ...(lastExecutionTime ? { status: { lastExecutionTime } } : {}),
  };
}

describe('decideSlot', () => {
  it('waits for the first slot after the creation of a policy that never ran', () => {
    expect(decideSlot(everyMinute, policy('2026-01-01T10:00:20Z'), new Date('2026-01-01T10:00:40Z'))).toEqual({
      kind: 'wait',
      until: new Date('2026-01-01T10:01:00Z'),
    });
  });

  it('runs a slot that has passed, once, however many were missed', () => {
    expect(decideSlot(everyMinute, policy('2026-01-01T10:00:20Z'), new Date('2026-01-01T10:07:05Z'))).toEqual({
      kind: 'run',
      slot: new Date('2026-01-01T10:01:00Z'),
    });
  });

  it('counts from the last execution: a slot already recorded is not run again', () => {
    const ran = policy('2026-01-01T09:00:00Z', '2026-01-01T10:01:02Z');
    expect(decideSlot(everyMinute, ran, new Date('2026-01-01T10:01:30Z'))).toEqual({
      kind: 'wait',
      until: new Date('2026-01-01T10:02:00Z'),
    });
  });

  it('never runs a schedule without slots', () => {
    expect(decideSlot(parseCronSchedule('0 0 30 2 *'), policy('2026-01-01T00:00:00Z'), new Date())).toEqual({
      kind: 'never',
    });
  });
});
