/**
 * The replica's side of leader election in Nest: runs the elector, starts the LeaderAware members
 * (discovered `@LeaderProvider()` providers and registered ones) while leading and stops them
 * synchronously when leadership ends, releases the lease on graceful shutdown, and exposes state.
 */
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { LEADER_LEASE_LOCK, LEADER_OPTIONS } from './leader.constants';
import type { ResolvedLeaderOptions } from './leader.options';
import { isLeaderAware, LeaderProvider, type LeaderAware } from './leader-aware';
import { LeaderElector, type LeaderState, type LogLevel, type StopReason } from './leader-elector';
import { LeaderWork } from './leader-work';
import type { LeaseLock } from './lease-lock';

export type LeaderEvent =
  | { readonly type: 'started-leading' }
  | { readonly type: 'stopped-leading'; readonly reason: StopReason }
  | { readonly type: 'new-leader'; readonly identity: string };

@Injectable()
export class LeaderService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LeaderService.name);
  private readonly elector: LeaderElector;
  private readonly work = new LeaderWork((message, error) =>
    this.logger.error(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
  private readonly listeners = new Set<(event: LeaderEvent) => void>();
  private discovered = false;

  constructor(
    @Inject(LEADER_OPTIONS) private readonly options: ResolvedLeaderOptions,
    @Inject(LEADER_LEASE_LOCK) lock: LeaseLock,
    @Optional() private readonly discovery?: DiscoveryService,
  ) {
    this.elector = new LeaderElector({
      lock,
      identity: options.identity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      log: (level, message) => this.log(level, message),
      callbacks: {
        onStartedLeading: () => {
          this.work.startTerm();
          this.emit({ type: 'started-leading' });
        },
        onStoppedLeading: (reason) => {
          const settled = this.work.stopTerm(reason);
          this.emit({ type: 'stopped-leading', reason });
          return settled;
        },
        onNewLeader: (identity) => this.emit({ type: 'new-leader', identity }),
      },
    });
  }

  get identity(): string {
    return this.elector.identity;
  }

  /** True only while this replica leads (false from the instant leadership is lost). */
  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /** The holder last observed in the lease; undefined when none is known or it was released. */
  leader(): string | undefined {
    return this.elector.state().leader;
  }

  /** The lease's leaseTransitions as last observed. */
  leaseTransitions(): number {
    return this.elector.state().leaseTransitions;
  }

  /** Everything at once, for admin endpoints. */
  state(): LeaderState & { readonly leaseName: string; readonly leaseNamespace: string } {
    return { ...this.elector.state(), leaseName: this.options.leaseName, leaseNamespace: this.options.leaseNamespace };
  }

  /** Adds work that runs only while leading (started at once if leading now). Returns an unregister function. */
  register(member: LeaderAware): () => void {
    return this.work.add(member);
  }

  /** Listens to leadership events (synchronous, in order). Returns an unsubscribe function. */
  onEvent(listener: (event: LeaderEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onApplicationBootstrap(): void {
    this.discoverMembers();
    if (this.options.autoStart) this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts contending (done on bootstrap unless `autoStart: false`). */
  start(): void {
    this.discoverMembers();
    this.elector.start();
  }

  /** Stops leader work, then releases the lease when `releaseOnShutdown` (the default). */
  async stop(): Promise<void> {
    await this.elector.stop({ release: this.options.releaseOnShutdown });
  }

  private discoverMembers(): void {
    if (this.discovered || !this.discovery) return;
    this.discovered = true;
    for (const wrapper of this.discovery.getProviders({ metadataKey: LeaderProvider.KEY })) {
      const instance: unknown = wrapper.instance;
      if (isLeaderAware(instance)) this.register(instance);
      else if (instance) this.logger.warn(`${wrapper.name} has @LeaderProvider() but no onStartedLeading method`);
    }
  }

  private emit(event: LeaderEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`leader event listener failed: ${String(error)}`);
      }
    }
  }

  private log(level: LogLevel, message: string): void {
    if (level === 'debug') this.logger.debug(message);
    else if (level === 'info') this.logger.log(message);
    else if (level === 'warn') this.logger.warn(message);
    else this.logger.error(message);
  }
}
