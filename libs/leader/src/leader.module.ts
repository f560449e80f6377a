/**
 * LeaderModule.forRoot(options) / forRootAsync({ imports, inject, useFactory }): Lease-based leader
 * election for the replicas of one application. Binds LEADER_OPTIONS (validated at registration),
 * LEADER_LEASE_LOCK (a KubeLeaseLock unless a lock is given) and LeaderService.
 */
import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { KubeHttpClient, KubeResources } from '@edict/kube/client';
import { KubeLeaseLock } from './kube-lease-lock';
import { LEADER_LEASE_LOCK, LEADER_OPTIONS } from './leader.constants';
import { resolveLeaderOptions, type LeaderModuleOptions, type ResolvedLeaderOptions } from './leader.options';
import { LeaderService } from './leader.service';
import type { LeaseLock } from './lease-lock';

export interface LeaderModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory: (...args: never[]) => LeaderModuleOptions | Promise<LeaderModuleOptions>;
  /** Register globally (default true: one election per application). */
  readonly global?: boolean;
}

@Module({})
export class LeaderModule {
  static forRoot(options: LeaderModuleOptions = {}, global = true): DynamicModule {
    const resolved = resolveLeaderOptions(options); // fails registration on bad options
    return LeaderModule.build([{ provide: LEADER_OPTIONS, useValue: resolved }], [], global);
  }

  static forRootAsync(options: LeaderModuleAsyncOptions): DynamicModule {
    return LeaderModule.build(
      [
        {
          provide: LEADER_OPTIONS,
          inject: options.inject ?? [],
          useFactory: async (...args: never[]) => resolveLeaderOptions(await options.useFactory(...args)),
        },
      ],
      options.imports ?? [],
      options.global ?? true,
    );
  }

  private static build(
    optionProviders: Provider[],
    imports: NonNullable<ModuleMetadata['imports']>,
    global: boolean,
  ): DynamicModule {
    return {
      module: LeaderModule,
      global,
      imports: [DiscoveryModule, ...imports],
      providers: [
        ...optionProviders,
        { provide: LEADER_LEASE_LOCK, inject: [LEADER_OPTIONS], useFactory: createLeaseLock },
        LeaderService,
      ],
      exports: [LeaderService, LEADER_OPTIONS],
    };
  }
}

function createLeaseLock(options: ResolvedLeaderOptions): LeaseLock {
  if (options.lock) return options.lock;
  return new KubeLeaseLock({
    resources: options.resources ?? new KubeResources(new KubeHttpClient(options.kubeConfig!)),
    name: options.leaseName,
    namespace: options.leaseNamespace,
    watch: options.watchLease,
  });
}
