/**
 * Work that runs only while this replica leads. Mark a provider with `@LeaderProvider()` to have
 * LeaderService find it, or pass it to `LeaderService.register`.
 */
import { DiscoveryService } from '@nestjs/core';
import type { StopReason } from './leader-elector';

export interface LeaderAware {
  /**
   * Called when this replica becomes leader. `signal` aborts the moment leadership ends: loops
   * must check it, and requests should pass it on. Leader election does not fence, so every leader
   * action must be idempotent.
   */
  onStartedLeading(signal: AbortSignal): Promise<void> | void;
  /** Called synchronously when leadership ends (lost, renew deadline passed, or shutdown). */
  onStoppedLeading?(reason: StopReason): void;
}

/** Class decorator: the provider is a LeaderAware discovered at application bootstrap. */
export const LeaderProvider = DiscoveryService.createDecorator<void>();

export function isLeaderAware(value: unknown): value is LeaderAware {
  return typeof (value as Partial<LeaderAware> | null | undefined)?.onStartedLeading === 'function';
}

/** The AbortSignal reason when leadership ends. */
export class LeadershipEndedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`leadership ended: ${reason}`);
    this.name = 'LeadershipEndedError';
  }
}
